import Foundation
import Quire
import QuireApps

/// `quire project create NAME --type prose|poetry|drama`.
struct ProjectCreateCommand: Command {
    static let name = "create"
    static let summary = "Create a project with its folder template."
    static let usage = "[--store DIR] NAME --type prose|poetry|drama [--details TEXT]"
    static let discussion = """
        Creates the project NAME at the top level of the store, with the 15 folders of
        its type's template, in one change; prints the tree. Creates the store when DIR
        holds none yet. Project names are unique: a name in use is refused.

        Example:
          quire project create "My Poetry" --type poetry
        """
    static let type = Option.value("type", placeholder: "TYPE", help: "prose, poetry or drama.")
    static let details = Option.value("details", placeholder: "TEXT", help: "Notes about the project.")
    static var options: [Option] { [StoreLocation.option, type, details] }

    var store: String?
    var projectName: String
    var projectType: ProjectType
    var details: String?

    init(parsing arguments: inout Arguments) throws(UsageError) {
        store = try StoreLocation.directory(from: arguments)
        projectName = try arguments.nextPositional(named: "NAME").recordName()
        guard let typeValue = arguments.value(of: Self.type) else { throw .missingOption(Self.type) }
        guard let type = ProjectType(rawValue: typeValue.text) else {
            throw .invalidValue(typeValue.text, source: typeValue.source, expected: "prose, poetry or drama")
        }
        projectType = type
        details = arguments.value(of: Self.details)?.text
    }

    func run(in context: ToolContext) async throws {
        let lines = try AppStore.with(store, in: context, creating: true) { store in
            let project = try store.write { tx in
                try BinderPath.checkFree(projectName, under: nil, tx)
                return try createProject(name: projectName, type: projectType, created: Date(), details: details, in: tx)
            }
            return try store.read { tx in try BinderTree.lines(of: BinderNode.read(project, tx)!, showIDs: false, tx) }
        }
        context.output.writeLine("created the \(projectType.rawValue) project '\(projectName)' with \(ProjectTemplate.folderCount(for: projectType)) folders:")
        for line in lines { context.output.writeLine(line) }
    }
}
