/// WellKit: geospatial well data on SQLite, SpatiaLite and PROJ.
public enum WellKit {
    /// The library and command-line tool version.
    public static let version = "0.1.0"
}
