package agent

// Names the external tests use that the package keeps to itself.
var (
	DefaultFile       = defaultFile
	FormatMemoryEntry = formatMemoryEntry
	IgnoredDirs       = ignoredDirs
)

// DefaultListEntries is defaultListEntries, for the external tests.
const DefaultListEntries = defaultListEntries
