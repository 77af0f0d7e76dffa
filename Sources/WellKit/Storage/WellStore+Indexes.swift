extension WellStore {
    /// Makes sure an index serves the sort `sortDescriptors` (with the section key first, if any),
    /// so that a ``BatchedResults`` id query reads ids in order instead of sorting every row.
    ///
    /// For example:
    ///
    /// ```swift
    /// try store.ensureSortIndex([WellSortDescriptor(.status), WellSortDescriptor(.spudDate, ascending: false)])
    /// // CREATE INDEX IF NOT EXISTS wellkit_sort_status_asc_spud_date_desc ON details(status ASC, spud_date DESC, pin_id)
    /// ```
    ///
    /// Only sorts made wholly of detail fields get an index (pins sorts are on the narrow table
    /// already). The name and columns come from the ``WellField`` allow-list. Building one costs
    /// a sort of the table, once; later loads keep it up to date.
    ///
    /// - Returns: the index name, or nil when the sort cannot use one.
    @discardableResult
    public func ensureSortIndex(_ sortDescriptors: [WellSortDescriptor]) throws -> String? {
        try engine.ensureSortIndex(sortDescriptors)
    }

    /// The index that serves the sort `sortDescriptors` (section key first), or nil when the store
    /// has none: reading never creates one, so a read-only listing can say that one would help.
    ///
    /// For example:
    ///
    /// ```swift
    /// if try store.sortIndex(for: request.sortDescriptors) == nil { print("wells index would make this faster") }
    /// ```
    package func sortIndex(for sortDescriptors: [WellSortDescriptor]) throws -> String? {
        try engine.sortIndex(for: sortDescriptors)
    }

    /// Whether an index could serve `sortDescriptors`: only sorts wholly of detail fields can use one.
    package static func sortCanUseIndex(_ sortDescriptors: [WellSortDescriptor]) -> Bool {
        QueryCompiler.sqlite.sortIndexName(sortDescriptors) != nil
    }
}
