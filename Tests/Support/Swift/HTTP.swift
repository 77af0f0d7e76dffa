import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// GET requests with URLSession.
package enum HTTP {
    package static func get(_ url: String, headers: [String: String] = [:], method: String = "GET") async throws -> (status: Int, headers: [String: String], body: Data) {
        var request = URLRequest(url: URL(string: url)!)
        request.httpMethod = method
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.cachePolicy = .reloadIgnoringLocalAndRemoteCacheData
        let (data, response) = try await URLSession.shared.data(for: request)
        let http = response as! HTTPURLResponse
        var fields: [String: String] = [:]
        for (name, value) in http.allHeaderFields { fields["\(name)"] = "\(value)" }
        return (http.statusCode, fields, data)
    }

    package static func json(_ url: String) async throws -> [String: Any] {
        let (status, _, body) = try await get(url)
        guard status == 200, let object = try JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw URLError(.badServerResponse, userInfo: [NSLocalizedDescriptionKey: "\(url): \(status) \(String(decoding: body, as: UTF8.self))"])
        }
        return object
    }

    package static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }
}
