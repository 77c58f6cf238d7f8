import Quire

extension ArgumentValue {
    /// The argument as a record name, checked against ``RecordName``'s rules (not empty
    /// after trimming, no control or invisible characters, not the form of a record ID,
    /// at most 255 characters).
    ///
    /// - Throws: ``UsageError/invalid(_:)`` with the rule it breaks.
    func recordName() throws(UsageError) -> String {
        do {
            try RecordName.validate(text)
        } catch {
            throw .invalid("\(error) (\(source))")
        }
        return text
    }

    /// The last name of a path argument, checked as ``recordName()`` does.
    ///
    /// - Parameter allowingID: Whether the last name may be a record ID instead (the
    ///   record itself, as `quire touch ID` names an existing file): it is returned
    ///   unchecked then.
    func lastPathName(allowingID: Bool = false) throws(UsageError) -> String {
        guard let name = BinderPath.components(text).last else {
            throw .invalidValue(text, source: source, expected: "a path such as 'My Poetry/Your Poetry/Draft/Ode'")
        }
        if allowingID, RecordID(parsing: name) != nil { return name }
        do {
            try RecordName.validate(name)
        } catch {
            throw .invalid("\(error) (the last name of \(source))")
        }
        return name
    }
}
