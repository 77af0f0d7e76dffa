/// The WellKit library and `wells` tool version.
public let wellKitVersion = "0.1.0"
