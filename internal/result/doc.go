// Package result defines the versioned result record: one flat JSON object per run, the only
// boundary between measuring and reporting. Engines fill a Record; reports read it.
//
// Compatibility: SchemaVersion changes whenever a field changes meaning or is removed; readers
// refuse records of another major version with a clear error (see Load).
package result
