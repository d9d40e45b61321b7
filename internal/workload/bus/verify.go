package bus

import (
	"fmt"

	"github.com/iobench/iobench/internal/result"
)

// verified is the bus's own check of a record (workload.Workload.Verified): every command has
// exactly one row and every event was seen, or the accounting that says otherwise.
func verified(rec *result.Record) (bool, string) {
	switch b := Section(rec); {
	case b == nil:
		return false, "the record has no bus section"
	case !b.Verified:
		return false, accounting(b)
	}
	return true, ""
}

// accounting says in one line what the bus's count found wrong.
func accounting(b *Record) string {
	msg := fmt.Sprintf("%d commands lost, %d duplicate rows, %d events never seen (of %d)", b.LostCommands, b.DuplicateRows, b.LostEvents, b.Commands)
	if b.FailedCommands > 0 {
		msg += fmt.Sprintf(", %d command deliveries failed in the consumer's handler and were rejected (%d redelivered by the broker)", b.FailedCommands, b.RedeliveredCommands)
	}
	if b.BadMessages > 0 {
		msg += fmt.Sprintf(", %d messages the consumer could not decode", b.BadMessages)
	}
	return msg
}

// flaw reads the signature of a seed flaw in a bus record (workload.Workload.Flaw). Messenger's
// redelivered-duplicate-key is commands that failed in the handler and were requeued, with
// every command's one row there, no duplicate row, every event seen and no message undecodable:
// a run that lost or doubled anything is a failure, never the flaw.
func flaw(rec *result.Record, finding string) (bool, string) {
	b := Section(rec)
	switch {
	case finding != "redelivered-duplicate-key":
		return false, "not a flaw of the bus"
	case b == nil:
		return false, "the record has no bus section"
	case b.LostCommands > 0 || b.DuplicateRows > 0 || b.LostEvents > 0 || b.BadMessages > 0:
		return false, "data lost or doubled: " + accounting(b)
	case b.FailedCommands == 0:
		return false, "no command failed in the handler"
	}
	return true, fmt.Sprintf("%d command deliveries failed on the primary key and were requeued; no command lost, no duplicate row, every event seen", b.FailedCommands)
}
