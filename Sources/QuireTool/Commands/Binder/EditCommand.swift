import Foundation
import Quire

/// `quire edit PATH`: the file in `$EDITOR`, saved back as the smallest edit.
struct EditCommand: Command {
    static let name = "edit"
    static let summary = "Edit a file's text in $EDITOR; the change is stored as the smallest edit."
    static let usage = "[--store DIR] PATH"
    static let discussion = """
        Copies the text of the file PATH to a temporary file, opens it in $VISUAL, else
        $EDITOR, else vi, and waits for the editor to exit. If the text changed, only
        the part that differs is stored (as 'quire write' does). The store is closed
        while the editor runs; if the file's text changed in the store meanwhile (a sync,
        another command), nothing is applied and your version is kept in a file whose
        name is printed, to apply with 'quire write'. An editor that exits with an
        error, or saves text that is not UTF-8, applies nothing; whatever it saved is
        kept the same way. With neither $VISUAL nor $EDITOR set and no vi on PATH, it
        asks you to set $EDITOR.

        Example:
          EDITOR=nano quire edit "My Poetry/Your Poetry/Draft/Ode"
        """
    static var options: [Option] { [StoreLocation.option] }

    var store: String?
    var path: String

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        path = try arguments.nextPositional(named: "PATH").text
    }

    func run(in context: ToolContext) async throws {
        let editor = try Self.editor(in: context.environment)
        let (file, original) = try AppStore.with(store, in: context) { store in
            try store.read { tx in
                let file = try FileAccess.file(path, tx)
                return (file, try tx.string(of: file.content))
            }
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("quire-edit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let safeName = String(file.name.map { $0 == "/" || $0 == "\0" ? "_" : $0 })
        let copy = folder.appendingPathComponent(safeName.hasSuffix(".txt") ? safeName : safeName + ".txt")
        try Data(original.utf8).write(to: copy)
        // The copy goes only when nothing of the user's can be in it: the edit was applied,
        // or the editor left it as it was. Every other failure keeps it and names it.
        var keepCopy = false
        defer { if !keepCopy { try? FileManager.default.removeItem(at: folder) } }
        let apply = "apply it with " + SuggestedCommand.quire("write", .value(path), "<", .value(copy.path))

        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", editor + " \"$1\"", "sh", copy.path]
        do {
            try process.run()
        } catch {
            throw AppError("cannot start the editor '\(editor)' (\(error.localizedDescription)); set EDITOR to an editor's command")
        }
        process.waitUntilExit()
        let data = FileManager.default.contents(atPath: copy.path)
        let changed = data.map { $0 != Data(original.utf8) } ?? false
        guard process.terminationStatus == 0 else {
            let status = process.terminationStatus
            let why = status == 127 ? " (the shell found no such command; set EDITOR to an editor's command)" : ""
            guard changed else {
                throw AppError("the editor '\(editor)' exited with status \(status)\(why); nothing was applied")
            }
            keepCopy = true
            throw AppError("the editor '\(editor)' exited with status \(status) after saving; nothing was applied. Your version is in \(copy.path): if it is what you meant, \(apply)")
        }
        guard let data else {
            throw AppError("the editor '\(editor)' removed the temporary copy \(copy.path); nothing was applied")
        }
        guard let edited = String(validating: data, as: UTF8.self) else {
            keepCopy = true
            throw AppError("the edited text is not UTF-8; nothing was applied. Your version is in \(copy.path): convert it (for example with iconv) and \(apply)")
        }
        if edited == original {
            context.output.writeLine("no changes to \(path)")
            return
        }
        let summary: String?
        do {
            summary = try AppStore.with(store, in: context) { store in
                try store.write { tx -> String? in
                    guard try tx.string(of: file.content) == original else { return nil }
                    try tx.setString(edited, in: file.content)
                    let (inserted, deleted) = RecordHistory.difference(original, edited)
                    return "saved \(path): +\(inserted) −\(deleted) characters, \(BinderTree.wordCount(try tx.wordCount(of: file.content)))"
                }
            }
        } catch {
            keepCopy = true
            throw AppError("\(error); nothing was applied. Your version is in \(copy.path): once that is fixed, \(apply)")
        }
        guard let summary else {
            keepCopy = true
            throw AppError("the text of \(path) changed in the store while you were editing (a sync or another command); nothing was applied. Your version is in \(copy.path): look at \(SuggestedCommand.quire("cat", .value(path))), then \(apply)")
        }
        context.output.writeLine(summary)
    }

    /// The editor's command: `$VISUAL`, else `$EDITOR`, else `vi` when it is on `PATH`.
    ///
    /// - Throws: ``AppError`` when neither is set and there is no `vi`, before anything
    ///   is copied.
    static func editor(in environment: [String: String]) throws -> String {
        if let chosen = [environment["VISUAL"], environment["EDITOR"]].compactMap({ $0 })
            .first(where: { !$0.trimmingCharacters(in: .whitespaces).isEmpty }) {
            return chosen
        }
        let directories = (environment["PATH"] ?? "").split(separator: ":").map(String.init)
        guard directories.contains(where: { FileManager.default.isExecutableFile(atPath: $0 + "/vi") }) else {
            throw AppError("no editor: $VISUAL and $EDITOR are not set and there is no vi on PATH; set EDITOR to your editor's command, for example: EDITOR=nano quire edit PATH")
        }
        return "vi"
    }
}
