import WellsCLI

// The commands live in WellsCLI, which the tests and `wells-bench` share.
Wells.run(Wells.positionalCoordinates(Array(CommandLine.arguments.dropFirst())))
