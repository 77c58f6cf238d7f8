/// The list of the commands `quire` offers.
///
/// To add a command, write a type conforming to ``Command`` in its own file in
/// `Sources/QuireTool/Commands/` and add it here.
public enum CommandRegistry {
    /// The commands, in the order `quire help` lists them.
    public static let commands: [any Command.Type] = [
        HelpCommand.self,
        VersionCommand.self,
        StatusCommand.self,
        ExportCommand.self,
        ImportCommand.self,
        SyncCommand.self,
        TraceCommand.self,
        BenchCommand.self,
    ]
}
