/// `quire cards`: the flash-card app.
struct CardsCommand: CommandGroup {
    static let name = "cards"
    static let summary = "Flash cards: categories, notes with answers, clues, and a quiz."
    static let discussion = """
        A category has a title and an ordered list of notes; a note has an answer and
        an ordered list of clues. Name a category by its title (or ID), a note as
        CATEGORY/N and a clue as CATEGORY/N/M, counting from 1 as the lists show them
        (or by ID). Order is the store's hierarchy, so reorders on two devices merge.

        Example:
          quire cards note add Capitals --answer Paris
        """
    static var subcommands: [any Command.Type] {
        [CategoryCommand.self, NoteCommand.self, ClueCommand.self, QuizCommand.self]
    }
}
