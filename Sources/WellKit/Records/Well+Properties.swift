extension Well {
    /// Every attribute of the well as named values, in the order `wells show` and the `items/{id}`
    /// page list them: id, uwi, name, lat, lon, the detail fields that have a value, the source
    /// coordinates, the suspect flag and the unmapped source columns as `extra.NAME`.
    package func properties(suspect: SuspectWell? = nil) -> [(name: String, value: WellValue)] {
        var pairs: [(name: String, value: WellValue)] = [
            ("id", .integer(pin.id)), ("uwi", .text(detail.identifier)),
            ("name", WellValue(pin.name)), ("lat", .real(pin.latitude)), ("lon", .real(pin.longitude)),
        ]
        for field in WellField.detailFields where field != .identifier {
            if let value = detail.values[field] { pairs.append((field.rawValue, value)) }
        }
        if let x = detail.sourceX, let y = detail.sourceY {
            pairs += [("source_x", .real(x)), ("source_y", .real(y)), ("source_crs", WellValue(detail.sourceCRS))]
        }
        if let suspect { pairs.append(("suspect", .text("\(suspect.reason): \(suspect.detail) (line \(suspect.line))"))) }
        for (key, value) in detail.extra.sorted(by: { $0.key < $1.key }) { pairs.append(("extra." + key, .text(value))) }
        return pairs
    }
}
