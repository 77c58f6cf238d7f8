/// The list of the commands `quire` offers.
///
/// To add a command, write a type conforming to ``Command`` in its own file in
/// `Sources/QuireTool/Commands/` and add it here.
public enum CommandRegistry {
    /// The commands, in the order `quire help` lists them.
    public static let commands: [any Command.Type] = [
        HelpCommand.self,
        VersionCommand.self,
        DemoCommand.self,
        // The writing binder (Commands/Binder).
        ProjectCommand.self,
        TreeCommand.self,
        MakeFolderCommand.self,
        MoveCommand.self,
        RenameCommand.self,
        RemoveCommand.self,
        RestoreCommand.self,
        TouchCommand.self,
        WriteCommand.self,
        CatCommand.self,
        DiffCommand.self,
        EditCommand.self,
        WordCountCommand.self,
        LogCommand.self,
        // The flash-card app (Commands/Cards).
        CardsCommand.self,
        StatusCommand.self,
        InfoCommand.self,
        ExportCommand.self,
        ImportCommand.self,
        SyncCommand.self,
        // Store maintenance (Commands/Tools).
        VerifyCommand.self,
        CompactCommand.self,
        TraceCommand.self,
        BenchCommand.self,
    ]
}
