package result

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// sectionTypes are the registered workload sections: a new, empty value of each, by JSON key.
var sectionTypes = map[string]func() any{}

// recordKeys are the JSON keys of Record's own fields, lower-cased (encoding/json matches them
// case-insensitively); every other top-level key of a record is a workload section.
var recordKeys = jsonKeys(reflect.TypeFor[Record]())

// RegisterSection registers a workload's record section under its JSON key: newSection returns
// a pointer to a new, empty value, which reading a record decodes the key into. A workload package
// calls it from init. It panics on an empty key, one registered twice or one of Record's own
// fields: mistakes in the program, found by its first start.
func RegisterSection(key string, newSection func() any) {
	if _, dup := sectionTypes[key]; dup || key == "" || recordKeys[strings.ToLower(key)] || newSection == nil {
		panic(fmt.Sprintf("result: RegisterSection(%q): empty, registered twice, or a field of Record", key))
	}
	sectionTypes[key] = newSection
}

// SectionOf returns rec's section under key as a *T, nil when rec has none (or holds it raw, its
// workload not being in this build).
func SectionOf[T any](rec *Record, key string) *T {
	if rec == nil {
		return nil
	}
	v, _ := rec.Sections[key].(*T)
	return v
}

// SetSection puts v in rec under key; a nil v removes the section.
func (r *Record) SetSection(key string, v any) {
	if v == nil || reflect.ValueOf(v).Kind() == reflect.Pointer && reflect.ValueOf(v).IsNil() {
		delete(r.Sections, key)
		return
	}
	if r.Sections == nil {
		r.Sections = map[string]any{}
	}
	r.Sections[key] = v
}

// plainRecord is Record without its JSON methods, for encoding/json's own work on its fields.
type plainRecord Record

// MarshalJSON writes the record's fields as their tags say, then its sections sorted by key in
// the place the typed sections had (before agent and merged), so records read the same as before.
func (r Record) MarshalJSON() ([]byte, error) {
	head := plainRecord(r)
	head.Agent, head.Merged = nil, nil
	b, err := encode(head)
	if err != nil {
		return nil, err
	}
	b = bytes.TrimSuffix(b, []byte("}"))
	keys := make([]string, 0, len(r.Sections))
	for k := range r.Sections {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if b, err = appendMember(b, k, r.Sections[k]); err != nil {
			return nil, err
		}
	}
	if r.Agent != nil {
		if b, err = appendMember(b, "agent", r.Agent); err != nil {
			return nil, err
		}
	}
	if r.Merged != nil {
		if b, err = appendMember(b, "merged", r.Merged); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}

// UnmarshalJSON reads the record's fields, then every other top-level key as a section: decoded
// into its registered type, or kept raw (json.RawMessage) when no workload of this build
// registered it, so that writing the record again loses nothing. A null section is none.
func (r *Record) UnmarshalJSON(b []byte) error {
	var p plainRecord
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return err
	}
	*r = Record(p)
	r.Sections = nil
	for k, raw := range members {
		if recordKeys[strings.ToLower(k)] || string(raw) == "null" {
			continue
		}
		var v any = raw
		if newSection, ok := sectionTypes[k]; ok {
			v = newSection()
			if err := json.Unmarshal(raw, v); err != nil {
				return fmt.Errorf("section %q: %w", k, err)
			}
		}
		r.SetSection(k, v)
	}
	return nil
}

// encode is json.Marshal without HTML escaping; whoever encodes the record applies its own.
func encode(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// appendMember appends `,"key":value` to the members of an object written so far (b without its
// closing brace); the comma is left out after the opening brace.
func appendMember(b []byte, key string, v any) ([]byte, error) {
	kb, err := encode(key)
	if err != nil {
		return nil, err
	}
	vb, err := encode(v)
	if err != nil {
		return nil, err
	}
	if len(b) > 1 {
		b = append(b, ',')
	}
	return append(append(append(b, kb...), ':'), vb...), nil
}

// jsonKeys returns the lower-cased JSON keys of t's fields.
func jsonKeys(t reflect.Type) map[string]bool {
	keys := map[string]bool{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		keys[strings.ToLower(name)] = true
	}
	return keys
}
