package result

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ErrSchema is returned by Load for a record written with another schema version.
var ErrSchema = errors.New("incompatible result schema")

// Write encodes r as indented JSON.
func Write(w io.Writer, r *Record) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// Save writes r to path ("-" is standard output), creating parent directories. It writes to a
// temporary file first so that a crash never leaves half a record.
func Save(path string, r *Record, stdout io.Writer) error {
	if path == "-" {
		return Write(stdout, r)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("cannot create the directory for %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".result-*.json")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := Write(tmp, r); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	if err := os.Chmod(tmp.Name(), 0o644); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Load reads one record and checks its schema version.
func Load(path string) (*Record, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: not a result record: %w", path, err)
	}
	if r.SchemaVersion != SchemaVersion {
		return nil, fmt.Errorf("%s: schema_version %d, this iobench reads %d: %w; re-run with this version",
			path, r.SchemaVersion, SchemaVersion, ErrSchema)
	}
	return &r, nil
}

// CheckWritable fails early, before any load is sent, when path cannot be written.
func CheckWritable(path string) error {
	if path == "" || path == "-" {
		return nil
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot write %s: %w; choose another path", path, err)
	}
	f, err := os.CreateTemp(dir, ".iobench-probe-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w; choose another path", path, err)
	}
	f.Close()
	return os.Remove(f.Name())
}
