import Quire

extension ArgumentValue {
    /// The argument as a record name, checked against ``RecordName``'s rules (not empty
    /// after trimming, no control characters, at most 255 characters).
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
    func lastPathName() throws(UsageError) -> String {
        guard let name = BinderPath.components(text).last else {
            throw .invalidValue(text, source: source, expected: "a path such as 'My Poetry/Your Poetry/Draft/Ode'")
        }
        do {
            try RecordName.validate(name)
        } catch {
            throw .invalid("\(error) (the last name of \(source))")
        }
        return name
    }
}
