import Foundation

extension Double {
    /// Plain decimal text without trailing zeros, e.g. 10 -> "10", 0.15 -> "0.15".
    package func projDecimal(_ digits: Int) -> String {
        var text = String(format: "%.\(digits)f", self)
        if text.contains(".") {
            while text.hasSuffix("0") { text.removeLast() }
            if text.hasSuffix(".") { text.removeLast() }
        }
        return text
    }
}
