package result_test

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/iobench/iobench/internal/result"
	"github.com/iobench/iobench/internal/workload/bus"
	_ "github.com/iobench/iobench/internal/workload/cachequeue"
	_ "github.com/iobench/iobench/internal/workload/fanout"
	_ "github.com/iobench/iobench/internal/workload/publish"
)

// testdataRecords returns the paths of every record under a testdata folder of the repository.
func testdataRecords(t *testing.T) []string {
	t.Helper()
	var paths []string
	err := filepath.WalkDir("../..", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && path != "../.." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, ".json") || !strings.Contains(filepath.ToSlash(path), "/testdata/") {
			return nil
		}
		b, err := os.ReadFile(path)
		if err == nil && bytes.Contains(b, []byte(`"schema_version"`)) {
			paths = append(paths, path)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) == 0 {
		t.Fatal("no records under any testdata folder")
	}
	return paths
}

// object decodes JSON into plain maps and slices, so that two encodings compare as objects.
func object(t *testing.T, b []byte) any {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

// TestRecordsRoundTrip: every record of the repository's testdata reads into its workload's
// typed section and writes back as the same JSON object, the same bytes too where result.Write
// wrote it.
func TestRecordsRoundTrip(t *testing.T) {
	typed := map[string]int{}
	for _, path := range testdataRecords(t) {
		in, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		rec, err := result.Load(path)
		if err != nil {
			t.Fatal(err)
		}
		for key, s := range rec.Sections {
			if _, raw := s.(json.RawMessage); raw {
				t.Errorf("%s: section %q kept raw, its workload registered", path, key)
			}
			typed[key]++
		}
		var out bytes.Buffer
		if err := result.Write(&out, rec); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(object(t, in), object(t, out.Bytes())) {
			t.Errorf("%s: written back as another JSON object:\n%s", path, out.Bytes())
		}
	}
	for _, key := range []string{"bus", "publish", "fanout", "cachequeue"} {
		if typed[key] == 0 {
			t.Errorf("no testdata record has a %q section: the round trip does not cover it", key)
		}
	}
}

// TestUnknownSection: a section no workload of this build registered is kept raw and written
// back unchanged, in its place, beside a registered one; a null one is none.
func TestUnknownSection(t *testing.T) {
	in := `{"schema_version":1,"workload":"toy","parameters":null,"command":null,"environment":{"os":"","arch":"","cores":0,"go_version":"","iobench_version":"","iobench_commit":""},` +
		`"started_at":"0001-01-01T00:00:00Z","duration":{"ns":0,"text":"0s"},"interrupted":false,"counts":{"attempted":0,"succeeded":0,"failed":0},` +
		`"throughput":{"unit":"","mean":0,"peak_second":0},"bus":{"profile":"seed","commands":5},"toy":{"b":[1,2,{"c":"<x>"}],"a":true},` +
		`"zz":null,"agent":{"index":0,"count":2,"run":"r1"}}`
	var rec result.Record
	if err := json.Unmarshal([]byte(in), &rec); err != nil {
		t.Fatal(err)
	}
	if got := string(rec.Sections["toy"].(json.RawMessage)); got != `{"b":[1,2,{"c":"<x>"}],"a":true}` {
		t.Errorf("toy kept as %s", got)
	}
	if b := bus.Section(&rec); b == nil || b.Commands != 5 || b.Profile != "seed" {
		t.Errorf("bus section %+v", b)
	}
	if _, ok := rec.Sections["zz"]; ok || len(rec.Sections) != 2 {
		t.Errorf("sections %v, want bus and toy only", rec.Sections)
	}
	if result.SectionOf[bus.Record](&rec, "toy") != nil {
		t.Error("a raw section read as a typed one")
	}
	out, err := json.Marshal(&rec)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"toy":{"b":[1,2,{"c":"\u003cx\u003e"}],"a":true},"agent":`) {
		t.Errorf("toy not written back unchanged before agent:\n%s", out)
	}
	var back result.Record
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(object(t, out), object(t, mustMarshal(t, &back))) {
		t.Error("a second round trip changed the record")
	}
	rec.SetSection("toy", nil)
	if _, ok := rec.Sections["toy"]; ok {
		t.Error("SetSection(nil) kept the section")
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestRegisterSectionRefuses: a key of the record's own or one registered twice is a mistake in
// the program.
func TestRegisterSectionRefuses(t *testing.T) {
	for _, key := range []string{"workload", "Counts", "bus", ""} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("RegisterSection(%q) did not panic", key)
				}
			}()
			result.RegisterSection(key, func() any { return new(struct{}) })
		}()
	}
}
