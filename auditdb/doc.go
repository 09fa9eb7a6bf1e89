// Package auditdb keeps Tessera's audit records, label moves and API keys
// in a database: SQLite (a pure-Go driver, no cgo), the embedded default
// of tessera serve, or PostgreSQL, which several server replicas share.
//
// A [DB] is an [audit.Store]: it holds the same records as the JSON Lines
// log, each as its exact JSON line beside indexed columns (correlation id,
// prompt hash, time, preset), chained as the log chains them, so that
// [DB.Import] of a log and [DB.Export] give back the same bytes and replay
// works from the database as from the file.
//
// [DB.Append] is durable when it returns. One writer goroutine per DB
// takes the records of every concurrent caller and commits them in one
// transaction (group commit); on PostgreSQL, writers in several processes
// take turns under an advisory lock, so the chain and the line numbers
// stay one sequence.
//
// The label history is kept complete by two tables beside it: the value
// of each label ref when last recorded ([DB.LabelRefs]), which
// [DB.AdvanceLabelRef] changes by compare-and-swap in the transaction
// that records the moves, and the moves a server is about to make
// ([DB.AddPendingMoves]), written before the ref moves.
//
// The schema is one set of goose migrations over embedded SQL files, with
// one file per dialect where their column types differ; [Open] runs them.
package auditdb
