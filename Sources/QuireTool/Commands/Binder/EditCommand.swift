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
        error applies nothing.

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
        var keepCopy = false
        defer { if !keepCopy { try? FileManager.default.removeItem(at: folder) } }

        let editor = [context.environment["VISUAL"], context.environment["EDITOR"]]
            .compactMap { $0 }.first { !$0.trimmingCharacters(in: .whitespaces).isEmpty } ?? "vi"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", editor + " \"$1\"", "sh", copy.path]
        do {
            try process.run()
        } catch {
            throw AppError("cannot start the editor '\(editor)' (\(error.localizedDescription)); set EDITOR to an editor's command")
        }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw AppError("the editor '\(editor)' exited with status \(process.terminationStatus); nothing was applied")
        }
        guard let data = FileManager.default.contents(atPath: copy.path), let edited = String(data: data, encoding: .utf8) else {
            throw AppError("the edited file \(copy.path) is missing or not UTF-8; nothing was applied")
        }
        if edited == original {
            context.output.writeLine("no changes to \(path)")
            return
        }
        let summary = try AppStore.with(store, in: context) { store in
            try store.write { tx -> String? in
                guard try tx.string(of: file.content) == original else { return nil }
                try tx.setString(edited, in: file.content)
                let (inserted, deleted) = RecordHistory.difference(original, edited)
                return "saved \(path): +\(inserted) −\(deleted) characters, \(BinderTree.wordCount(try tx.wordCount(of: file.content)))"
            }
        }
        guard let summary else {
            keepCopy = true
            throw AppError("the text of \(path) changed in the store while you were editing (a sync or another command); nothing was applied. Your version is in \(copy.path): look at 'quire cat \(path.shellQuoted)', then apply yours with 'quire write \(path.shellQuoted) < \(copy.path.shellQuoted)'")
        }
        context.output.writeLine(summary)
    }
}
