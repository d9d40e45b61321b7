// Package report renders result records for people: a text block in wrk's layout (so a wrk user
// reads it at a glance) extended with the tail percentiles, the open-loop views and the warnings.
// It reads only result.Record, so any saved record can be rendered again.
package report
