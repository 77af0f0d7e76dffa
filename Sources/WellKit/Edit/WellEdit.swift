import Foundation

/// One change to one well, by its identifier: what ``WellStore/apply(_:)-68xod`` writes, in a batch, in
/// one transaction.
///
/// For example:
///
/// ```swift
/// try store.apply([.update(moved), .delete(identifier: "05-123-00001")])
/// ```
public enum WellEdit: Sendable, Hashable {
    /// A well the store does not hold yet; its pin id is the store's to give (``Well/id`` is ignored).
    case insert(Well)
    /// Every field of a stored well, matched by identifier, as the well gives them: a field the
    /// well has no value for is cleared. Fetch the well, change it, and write it back.
    case update(Well)
    /// Removes the well of this identifier: its pin, its detail and any suspect flag.
    case delete(identifier: String)

    /// The identifier of the well the edit concerns.
    public var identifier: String {
        switch self {
        case .insert(let well), .update(let well): well.detail.identifier
        case .delete(let identifier): identifier
        }
    }
}

/// Why a write of wells (``WellStore/apply(_:)-68xod``, ``WellStore/insert(_:)-7xzi6`` and the rest) changed
/// nothing: the identifier it concerns and the reason.
public struct WellEditError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Code: String, Sendable {
        /// An insert of an identifier the store already holds.
        case alreadyStored
        /// An update or delete of an identifier the store does not hold.
        case notStored
        /// The same identifier twice in one batch.
        case repeated
        /// An identifier that is empty, or has spaces at its ends (a load would trim them).
        case invalidIdentifier
        /// A well a load would reject: coordinates out of range or at 0/0, or lying outside the
        /// places it names; ``reason`` is the load's.
        case rejected
    }

    public let code: Code
    /// The identifier of the well concerned, when the reason is one well's.
    public let identifier: String?
    public let reason: String

    package init(_ code: Code, identifier: String?, _ reason: String) {
        (self.code, self.identifier, self.reason) = (code, identifier, reason)
    }

    public var description: String {
        (identifier.map { "well \"\($0)\": " } ?? "") + reason + "; nothing was changed"
    }
}

/// What a batch of edits expects to find stored, which the engine checks inside the write's
/// transaction (so that no other write can come between the check and the write), and the wells it
/// deletes there.
package struct EditPlan: Sendable {
    /// The identifiers of the inserts: none may be stored.
    package var inserts: Set<String> = []
    /// The identifiers of the updates: each must be stored.
    package var updates: Set<String> = []
    /// The identifiers to delete, in the edits' order: each must be stored.
    package var deletes: [String] = []

    /// Throws unless a well written with `identifier` finds what its edit expects: `stored` says
    /// whether the store holds it now.
    package func check(_ identifier: String, stored: Bool) throws {
        if stored, inserts.contains(identifier) {
            throw WellEditError(.alreadyStored, identifier: identifier, "the store already holds a well of this identifier; update it instead")
        }
        if !stored, updates.contains(identifier) {
            throw WellEditError(.notStored, identifier: identifier, "the store holds no well of this identifier to update; insert it instead")
        }
    }

    /// The error of a delete whose identifier is not stored.
    package static func notStoredForDelete(_ identifier: String) -> WellEditError {
        WellEditError(.notStored, identifier: identifier, "the store holds no well of this identifier to delete")
    }

    /// How the edit is recorded with its `loads` row, among its inferences: the counts, and the
    /// identifiers deleted (the only trace a delete leaves).
    package func record(inserted: Int, updated: Int) -> Inference {
        var value = "\(inserted) inserted, \(updated) updated, \(deletes.count) deleted"
        if !deletes.isEmpty {
            let shown = deletes.prefix(100).map { "\"\($0)\"" }.joined(separator: ", ")
            value += ": " + shown + (deletes.count > 100 ? " and \(deletes.count - 100) more" : "")
        }
        return Inference(subject: "edit", column: nil, value: value, evidence: "written by the library's insert, update and delete", override: "")
    }
}
