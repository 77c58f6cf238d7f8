/// `quire project`: the writing app's projects.
struct ProjectCommand: CommandGroup {
    static let name = "project"
    static let summary = "Create and list writing projects (prose, poetry, drama)."
    static let discussion = """
        A project is a top-level record with a name, a type and a creation date; creating
        one builds its 15-folder template ("Your Poetry", "Publications", "Trash" ...).
        Browse and change it with 'quire tree', 'mkdir', 'mv', 'write' and the others.

        Example:
          quire project create "My Poetry" --type poetry
        """
    static var subcommands: [any Command.Type] { [ProjectCreateCommand.self, ProjectListCommand.self] }
}
