extension ReplicatedText {
    /// Makes the text read as it did at `version`, as new local edits: deletes what was
    /// inserted since and types again, as new characters, what was deleted since, where
    /// it was.
    ///
    /// ```swift
    /// let draft = text.version
    /// try text.replace(0..<5, with: "Howdy")
    /// let operations = try text.restore(to: draft)   // reads as before; send `operations`
    /// ```
    ///
    /// The history is not rewound: the restore is an edit like any other, made of
    /// ordinary operations that ship to peers and merge with their concurrent edits (an
    /// edit made elsewhere meanwhile survives; a character deleted here and typed again
    /// is a new character, with a new ID).
    ///
    /// - Parameter version: A causally closed version within ``version``.
    /// - Returns: The operations the restore made (none when the text already reads so).
    /// - Throws: As ``string(at:)`` does, for a version that cannot be shown;
    ///   ``TextError/tooLarge(replica:)`` when this replica cannot insert that much more
    ///   text. Nothing is changed when it throws.
    /// - Complexity: That of ``diff(from:to:)``, plus O(log n) per run of characters
    ///   deleted or typed again.
    @discardableResult
    public func restore(to version: VersionVector) throws(TextError) -> [TextOperation] {
        let diff = try diff(from: self.version, to: version)
        let bytes = diff.edits.reduce(0) { $0 + $1.insertedText.utf8.count }
        if bytes > 0 { try checkRoom(for: bytes, agent: localAgent) }
        let first = localCounter
        // Back to front: each edit's range in the current text stays where it was.
        for edit in diff.edits.reversed() {
            deleteScalars(edit.deletedRange)
            if !edit.insertedText.isEmpty {
                insertScalars(
                    edit.insertedText.utf8, length: edit.insertedRange.count, utf16: edit.insertedUTF16Range.count,
                    at: edit.deletedRange.lowerBound)
            }
        }
        return localOperations(since: first)
    }
}
