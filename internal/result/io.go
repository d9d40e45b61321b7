package result

import (
	"bytes"
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
	var b bytes.Buffer
	if err := Write(&b, r); err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return WriteFileAtomic(path, b.Bytes())
}

// WriteFileAtomic writes b to path (mode 0644) through a temporary file in the same directory,
// creating the directory, so that a reader never sees half a file.
func WriteFileAtomic(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("cannot create the directory for %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".iobench-*")
	if err != nil {
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("cannot write %s: %w", path, err)
	}
	return nil
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
