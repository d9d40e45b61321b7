package result

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestSaveLoadRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "a", "b", "r.json")
	in := &Record{
		SchemaVersion: SchemaVersion, Workload: "http", Parameters: map[string]any{"connections": 10},
		Duration: Duration(1500 * time.Millisecond), Counts: Counts{Succeeded: 7, Errors: map[string]int64{"read": 1}},
		Latency: &Latency{Unit: "us", Count: 7, Percentiles: []Percentile{{P: 99, Value: 120}}},
	}
	if err := Save(path, in, nil); err != nil {
		t.Fatal(err)
	}
	out, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if out.Duration != in.Duration || out.Counts.Errors["read"] != 1 || out.Latency.At(99) != 120 {
		t.Fatalf("round trip changed the record: %+v", out)
	}
	if st, _ := os.Stat(path); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", st.Mode().Perm())
	}
	leftovers, _ := filepath.Glob(filepath.Join(filepath.Dir(path), ".iobench-*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

func TestSaveToStdout(t *testing.T) {
	var b bytes.Buffer
	if err := Save("-", &Record{SchemaVersion: SchemaVersion}, &b); err != nil {
		t.Fatal(err)
	}
	if !bytes.HasPrefix(b.Bytes(), []byte("{\n  \"schema_version\": 1")) {
		t.Fatalf("schema_version must come first: %s", b.String())
	}
}

func TestLoadRejectsOtherSchema(t *testing.T) {
	path := filepath.Join(t.TempDir(), "old.json")
	os.WriteFile(path, []byte(`{"schema_version": 99}`), 0o644)
	if _, err := Load(path); !errors.Is(err, ErrSchema) {
		t.Fatalf("Load of schema 99: %v, want ErrSchema", err)
	}
	os.WriteFile(path, []byte(`not json`), 0o644)
	if _, err := Load(path); err == nil {
		t.Fatal("Load accepted garbage")
	}
}

func TestCheckWritable(t *testing.T) {
	if err := CheckWritable(filepath.Join(t.TempDir(), "x", "r.json")); err != nil {
		t.Fatal(err)
	}
	if err := CheckWritable("/proc/nope/r.json"); err == nil {
		t.Fatal("accepted an unwritable path")
	}
	if CheckWritable("-") != nil || CheckWritable("") != nil {
		t.Fatal("stdout and no path are always writable")
	}
}

func TestCaptureEnvironment(t *testing.T) {
	e := CaptureEnvironment()
	if e.Cores == 0 || e.GoVersion == "" || e.OS == "" || e.Version == "" {
		t.Fatalf("environment incomplete: %+v", e)
	}
}
