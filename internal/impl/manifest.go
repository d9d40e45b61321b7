package impl

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/iobench/iobench/internal/units"
)

// ManifestFile is the name of the manifest in an impl's folder.
const ManifestFile = "impl.yaml"

// Languages an impl may be written in.
var Languages = []string{"go", "node", "php", "python"}

// Modes of an impl: one operation in flight per process, or many.
var Modes = []string{"sync", "async"}

// Workloads are the workload ids an impl may declare (DESIGN §2).
var Workloads = []string{"bus", "cachequeue", "fanout", "hello", "publish"}

// httpWorkloads are the workloads whose impls serve HTTP and declare routes.
var httpWorkloads = []string{"cachequeue", "fanout", "hello"}

// Signals a manifest may name in stop.signal.
var Signals = []string{"INT", "KILL", "QUIT", "TERM"}

// Manifest is an impl.yaml: what the impl is, what it implements, what it needs and how it is
// installed, started, found ready and stopped.
type Manifest struct {
	Name        string              `yaml:"name"`        // unique, [a-z0-9-], e.g. "pika-publisher"
	Language    string              `yaml:"language"`    // one of Languages
	Mode        string              `yaml:"mode"`        // sync or async
	Description string              `yaml:"description"` // one line for `iobench impls`
	Workloads   map[string]Workload `yaml:"workloads"`   // workload id -> what the impl does for it
	Requires    Requires            `yaml:"requires"`
	Install     InstallSpec         `yaml:"install"`
	Start       StartSpec           `yaml:"start"`
	Ready       ReadySpec           `yaml:"ready"`
	Stop        StopSpec            `yaml:"stop"`

	// Dir is the absolute path of the impl's folder (set by Load).
	Dir string `yaml:"-"`
}

// Workload is what an impl does for one workload: HTTP routes it serves, queues it uses, or, for
// publish, the variants it can run.
type Workload struct {
	Routes   []string  `yaml:"routes"`
	Queues   []string  `yaml:"queues"`
	Variants []Variant `yaml:"variants"`
}

// Variant is one selectable way an impl runs a workload (e.g. the seed's "4 processes"). Its
// settings are handed to the impl through the environment (see VariantEnv) and tell iobench how
// to prepare the queue and count at the broker.
type Variant struct {
	Name         string            `yaml:"name"`          // [a-z0-9-]
	Description  string            `yaml:"description"`   // one line
	Seed         string            `yaml:"seed"`          // the seed's row this reproduces, with its number
	Queue        string            `yaml:"queue"`         // queue name (the seed's)
	QueueDurable bool              `yaml:"queue_durable"` // declare the queue durable
	Persistent   bool              `yaml:"persistent"`    // delivery mode 2
	Confirm      bool              `yaml:"confirm"`       // publisher confirms
	Concurrency  int               `yaml:"concurrency"`   // threads, processes or tasks; 0 = 1
	Count        int               `yaml:"count"`         // messages, the seed's count
	Env          map[string]string `yaml:"env"`           // extra environment for this variant
}

// Requires lists the impl's prerequisites, each with a hint saying how to get it.
type Requires struct {
	Commands      []Requirement `yaml:"commands"`
	Python        []Requirement `yaml:"python"`
	Node          []Requirement `yaml:"node"`
	PHPExtensions []Requirement `yaml:"php_extensions"`
}

// Requirement is one prerequisite. For Python, Import is the module to import when it differs
// from Name (the distribution name, e.g. aio-pika -> aio_pika).
type Requirement struct {
	Name   string `yaml:"name"`
	Import string `yaml:"import"`
	Hint   string `yaml:"hint"`
}

// InstallSpec says how the impl's own dependencies are installed into the state directory.
type InstallSpec struct {
	// Venv is a requirements file (relative to the impl folder) installed with pip into a
	// virtualenv owned by iobench.
	Venv string `yaml:"venv"`
	// NPM is a package-lock.json (relative to the impl folder) installed with npm ci, with its
	// package.json, into a folder owned by iobench.
	NPM string `yaml:"npm"`
}

// StartSpec is the impl's command line and fixed environment. The command runs in the impl's folder;
// a first word "python" is the impl's virtualenv interpreter, "node" gets NODE_PATH set to its
// installed modules; {dir} and {state} expand to the impl's folder and state directory.
type StartSpec struct {
	Command []string          `yaml:"command"`
	Env     map[string]string `yaml:"env"`
}

// ReadySpec says when the started impl is ready: a line it prints matching Log (a regular
// expression), or accepting TCP connections on its IOBENCH_LISTEN address (TCP: listen).
type ReadySpec struct {
	Log     string `yaml:"log"`
	TCP     string `yaml:"tcp"`
	Timeout string `yaml:"timeout"` // default 30s
}

// StopSpec says how the impl is stopped: Signal to its process group, then SIGKILL after Timeout.
type StopSpec struct {
	Signal  string `yaml:"signal"`  // default TERM
	Timeout string `yaml:"timeout"` // default 5s
}

// ReadyTimeout returns ready.timeout, 30s when not set.
func (m *Manifest) ReadyTimeout() time.Duration { return durationOr(m.Ready.Timeout, 30*time.Second) }

// StopTimeout returns stop.timeout, 5s when not set.
func (m *Manifest) StopTimeout() time.Duration { return durationOr(m.Stop.Timeout, 5*time.Second) }

// WorkloadNames returns the workloads the impl declares, sorted.
func (m *Manifest) WorkloadNames() []string {
	out := make([]string, 0, len(m.Workloads))
	for k := range m.Workloads {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Variant returns the named variant of a workload, or false.
func (m *Manifest) Variant(workload, name string) (Variant, bool) {
	for _, v := range m.Workloads[workload].Variants {
		if v.Name == name {
			return v, true
		}
	}
	return Variant{}, false
}

func durationOr(s string, def time.Duration) time.Duration {
	if s == "" {
		return def
	}
	d, err := units.ParseDuration(s)
	if err != nil || d == 0 {
		return def
	}
	return d
}

// ErrManifest is matched (errors.Is) by every error of a manifest that cannot be used.
var ErrManifest = errors.New("invalid impl manifest")

// Problem is one thing wrong in a manifest: where, what, and what to do.
type Problem struct {
	Field string // e.g. "workloads.publish.variants[1].count"; empty for the file as a whole
	Msg   string
	Hint  string
}

// String renders the problem as "field: msg (hint)".
func (p Problem) String() string {
	s := p.Msg
	if p.Field != "" {
		s = p.Field + ": " + s
	}
	if p.Hint != "" {
		s += " (" + p.Hint + ")"
	}
	return s
}

// ManifestError lists every problem of one manifest. Its message is one line.
type ManifestError struct {
	Path     string
	Problems []Problem
}

// Error returns "PATH: N problems: p1; p2; ...".
func (e *ManifestError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	n := "1 problem"
	if len(e.Problems) != 1 {
		n = fmt.Sprintf("%d problems", len(e.Problems))
	}
	return fmt.Sprintf("%s: %s: %s", e.Path, n, strings.Join(parts, "; "))
}

// Is makes errors.Is(err, ErrManifest) true.
func (e *ManifestError) Is(target error) bool { return target == ErrManifest }

// Load reads dir/impl.yaml and validates it; dir becomes the manifest's Dir.
func Load(dir string) (*Manifest, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	path := filepath.Join(abs, ManifestFile)
	data, err := os.ReadFile(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &ManifestError{Path: path, Problems: []Problem{{Msg: "no manifest", Hint: "every impl folder needs an " + ManifestFile + "; see iobench impls --help"}}}
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	m, err := Parse(data, abs)
	if err != nil {
		var me *ManifestError
		if errors.As(err, &me) {
			me.Path = path
		}
		return nil, err
	}
	return m, nil
}

// Parse decodes and validates a manifest whose folder is dir (used to check that the files it
// names exist; empty skips those checks). Every problem is reported in one *ManifestError.
func Parse(data []byte, dir string) (*Manifest, error) {
	var probs []Problem
	add := func(field, msg, hint string) { probs = append(probs, Problem{field, msg, hint}) }
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		add("", "not valid YAML: "+oneLine(strings.TrimPrefix(err.Error(), "yaml: ")), "fix the syntax; indentation uses spaces")
		return nil, &ManifestError{Path: ManifestFile, Problems: probs}
	}
	if len(root.Content) == 0 {
		add("", "empty manifest", "start from impls/python/pika-publisher/impl.yaml")
		return nil, &ManifestError{Path: ManifestFile, Problems: probs}
	}
	doc := root.Content[0]
	if doc.Kind != yaml.MappingNode {
		add("", "the manifest must be a mapping of keys (name, language, ...)", "start from impls/python/pika-publisher/impl.yaml")
		return nil, &ManifestError{Path: ManifestFile, Problems: probs}
	}
	checkKeys(doc, manifestSchema, "", add)
	var m Manifest
	if err := doc.Decode(&m); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) {
			for _, e := range te.Errors {
				add("", oneLine(strings.TrimPrefix(e, "yaml: ")), "give the value the type the field takes")
			}
		} else {
			add("", oneLine(err.Error()), "")
		}
	}
	m.Dir = dir
	m.validate(add)
	if len(probs) > 0 {
		return nil, &ManifestError{Path: ManifestFile, Problems: probs}
	}
	return &m, nil
}

var nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)

// validate adds a problem for every field that is missing or wrong.
func (m *Manifest) validate(add func(field, msg, hint string)) {
	switch {
	case m.Name == "":
		add("name", "missing", "give the impl a name such as pika-publisher, usually its folder's")
	case !nameRE.MatchString(m.Name):
		add("name", fmt.Sprintf("%q is not a valid name", m.Name), "use lower-case letters, digits and '-'")
	}
	oneOf(add, "language", m.Language, Languages)
	oneOf(add, "mode", m.Mode, Modes)
	if len(m.Workloads) == 0 {
		add("workloads", "missing", "declare at least one of "+strings.Join(Workloads, ", ")+" with what it needs")
	}
	for _, w := range m.WorkloadNames() {
		m.validateWorkload(add, w, m.Workloads[w])
	}
	m.validateRequires(add)
	m.validateInstall(add)
	if len(m.Start.Command) == 0 || m.Start.Command[0] == "" {
		add("start.command", "missing", `give the command as a list, e.g. ["python", "publisher.py"]`)
	}
	for k := range m.Start.Env {
		if !envRE.MatchString(k) {
			add("start.env."+k, "not a valid environment variable name", "use letters, digits and '_'")
		}
	}
	switch {
	case m.Ready.Log == "" && m.Ready.TCP == "":
		add("ready", "missing", "say when the impl is ready: log: '^ready$' or tcp: listen")
	case m.Ready.Log != "" && m.Ready.TCP != "":
		add("ready", "both log and tcp given", "keep one of them")
	case m.Ready.Log != "":
		if _, err := regexp.Compile(m.Ready.Log); err != nil {
			add("ready.log", "not a valid regular expression: "+oneLine(err.Error()), "use Go (RE2) syntax, e.g. '^ready$'")
		}
	case m.Ready.TCP != "listen":
		add("ready.tcp", fmt.Sprintf("%q", m.Ready.TCP), "the only value is listen: the IOBENCH_LISTEN address")
	}
	checkDuration(add, "ready.timeout", m.Ready.Timeout)
	if m.Stop.Signal != "" {
		oneOf(add, "stop.signal", strings.TrimPrefix(m.Stop.Signal, "SIG"), Signals)
	}
	checkDuration(add, "stop.timeout", m.Stop.Timeout)
}

var envRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

func (m *Manifest) validateWorkload(add func(field, msg, hint string), id string, w Workload) {
	f := "workloads." + id
	if !slices.Contains(Workloads, id) {
		add(f, "unknown workload", "choose from "+strings.Join(Workloads, ", "))
		return
	}
	switch {
	case slices.Contains(httpWorkloads, id):
		if len(w.Routes) == 0 {
			add(f+".routes", "missing", "list the routes served, e.g. [\"/\"] (DESIGN §5.3)")
		}
		for i, r := range w.Routes {
			if !strings.HasPrefix(r, "/") {
				add(fmt.Sprintf("%s.routes[%d]", f, i), fmt.Sprintf("%q does not start with /", r), "write the path, e.g. /cache/redis")
			}
		}
	case id == "bus":
		if len(w.Queues) == 0 {
			add(f+".queues", "missing", "list the queues the impl consumes and publishes to")
		}
	case id == "publish":
		if len(w.Variants) == 0 {
			add(f+".variants", "missing", "list at least one variant with name, queue and count")
		}
		seen := map[string]bool{}
		for i, v := range w.Variants {
			vf := fmt.Sprintf("%s.variants[%d]", f, i)
			switch {
			case v.Name == "":
				add(vf+".name", "missing", "name the variant, e.g. single or processes")
			case !nameRE.MatchString(v.Name):
				add(vf+".name", fmt.Sprintf("%q is not a valid name", v.Name), "use lower-case letters, digits and '-'")
			case seen[v.Name]:
				add(vf+".name", fmt.Sprintf("%q used twice", v.Name), "give each variant its own name")
			}
			seen[v.Name] = true
			if v.Queue == "" {
				add(vf+".queue", "missing", "name the queue the variant publishes to (the seed's)")
			}
			if v.Count <= 0 {
				add(vf+".count", fmt.Sprintf("%d", v.Count), "give the seed's message count, a positive number")
			}
			if v.Concurrency < 0 {
				add(vf+".concurrency", fmt.Sprintf("%d", v.Concurrency), "use 0 or 1 for one, or the number of threads/processes/tasks")
			}
			if v.Persistent && !v.QueueDurable {
				add(vf+".persistent", "persistent messages in a non-durable queue do not survive a restart", "set queue_durable: true")
			}
			for k := range v.Env {
				if !envRE.MatchString(k) {
					add(vf+".env."+k, "not a valid environment variable name", "use letters, digits and '_'")
				}
			}
		}
	}
}

func (m *Manifest) validateRequires(add func(field, msg, hint string)) {
	lists := []struct {
		field string
		reqs  []Requirement
	}{
		{"requires.commands", m.Requires.Commands},
		{"requires.python", m.Requires.Python},
		{"requires.node", m.Requires.Node},
		{"requires.php_extensions", m.Requires.PHPExtensions},
	}
	for _, l := range lists {
		for i, r := range l.reqs {
			f := fmt.Sprintf("%s[%d]", l.field, i)
			if r.Name == "" {
				add(f+".name", "missing", "name the command, package or extension")
			}
			if r.Hint == "" {
				add(f+".hint", "missing", "say how to install it, e.g. 'apt-get install python3-venv'")
			}
		}
	}
	if len(m.Requires.Python) > 0 && m.Language != "python" {
		add("requires.python", "Python packages for a "+m.Language+" impl", "move them to a Python impl or drop them")
	}
	if len(m.Requires.Node) > 0 && m.Language != "node" {
		add("requires.node", "Node packages for a "+m.Language+" impl", "move them to a Node impl or drop them")
	}
}

func (m *Manifest) validateInstall(add func(field, msg, hint string)) {
	if m.Install.Venv != "" {
		if m.Language != "python" {
			add("install.venv", "a virtualenv for a "+m.Language+" impl", "only Python impls install with venv")
		}
		m.checkFile(add, "install.venv", m.Install.Venv, "add the file with pinned versions (pkg==1.2.3)")
	}
	if m.Install.NPM != "" {
		if m.Language != "node" {
			add("install.npm", "npm ci for a "+m.Language+" impl", "only Node impls install with npm")
		}
		if filepath.Base(m.Install.NPM) != "package-lock.json" {
			add("install.npm", fmt.Sprintf("%q is not a package-lock.json", m.Install.NPM), "npm ci needs the lock file; run npm install once and commit package-lock.json")
		} else {
			m.checkFile(add, "install.npm", m.Install.NPM, "run npm install once and commit package-lock.json")
			m.checkFile(add, "install.npm", filepath.Join(filepath.Dir(m.Install.NPM), "package.json"), "npm ci needs package.json beside the lock file")
		}
	}
	if m.Language == "python" && len(m.Requires.Python) > 0 && m.Install.Venv == "" {
		add("install.venv", "missing while requires.python lists packages", "name the requirements file, e.g. venv: requirements.txt")
	}
	if m.Language == "node" && len(m.Requires.Node) > 0 && m.Install.NPM == "" {
		add("install.npm", "missing while requires.node lists packages", "name the lock file: npm: package-lock.json")
	}
}

// checkFile adds a problem when rel is not a file inside the impl's folder.
func (m *Manifest) checkFile(add func(field, msg, hint string), field, rel, hint string) {
	if filepath.IsAbs(rel) || strings.HasPrefix(filepath.Clean(rel), "..") {
		add(field, fmt.Sprintf("%q is outside the impl folder", rel), "give a path relative to the folder of impl.yaml")
		return
	}
	if m.Dir == "" {
		return
	}
	if st, err := os.Stat(filepath.Join(m.Dir, rel)); err != nil || !st.Mode().IsRegular() {
		add(field, fmt.Sprintf("%s not found in %s", rel, m.Dir), hint)
	}
}

func oneOf(add func(field, msg, hint string), field, v string, allowed []string) {
	switch {
	case v == "":
		add(field, "missing", "use one of "+strings.Join(allowed, ", "))
	case !slices.Contains(allowed, v):
		add(field, fmt.Sprintf("%q", v), "use one of "+strings.Join(allowed, ", "))
	}
}

func checkDuration(add func(field, msg, hint string), field, v string) {
	if v == "" {
		return
	}
	if d, err := units.ParseDuration(v); err != nil || d == 0 {
		add(field, fmt.Sprintf("%q is not a positive duration", v), "write e.g. 30s or 2m")
	}
}

// oneLine folds a multi-line message into one line.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// schema nodes: which keys a mapping may have, so that a misspelt key is reported, not ignored.
type (
	leaf   struct{}
	fields map[string]any
	mapOf  struct{ elem any }
	listOf struct{ elem any }
	envMap struct{} // a mapping of strings (env)
)

var requirement = listOf{fields{"name": leaf{}, "import": leaf{}, "hint": leaf{}}}

var manifestSchema = fields{
	"name": leaf{}, "language": leaf{}, "mode": leaf{}, "description": leaf{},
	"workloads": mapOf{fields{
		"routes": leaf{}, "queues": leaf{},
		"variants": listOf{fields{
			"name": leaf{}, "description": leaf{}, "seed": leaf{}, "queue": leaf{}, "queue_durable": leaf{},
			"persistent": leaf{}, "confirm": leaf{}, "concurrency": leaf{}, "count": leaf{}, "env": envMap{},
		}},
	}},
	"requires": fields{"commands": requirement, "python": requirement, "node": requirement, "php_extensions": requirement},
	"install":  fields{"venv": leaf{}, "npm": leaf{}},
	"start":    fields{"command": leaf{}, "env": envMap{}},
	"ready":    fields{"log": leaf{}, "tcp": leaf{}, "timeout": leaf{}},
	"stop":     fields{"signal": leaf{}, "timeout": leaf{}},
}

// checkKeys reports keys the schema does not know, with the keys it does.
func checkKeys(n *yaml.Node, schema any, path string, add func(field, msg, hint string)) {
	join := func(k string) string {
		if path == "" {
			return k
		}
		return path + "." + k
	}
	switch s := schema.(type) {
	case fields:
		if n.Kind != yaml.MappingNode {
			if n.Kind != yaml.ScalarNode || n.Tag != "!!null" {
				add(path, "must be a mapping", "give it keys: "+strings.Join(sortedKeys(s), ", "))
			}
			return
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i].Value
			sub, ok := s[k]
			if !ok {
				add(join(k), "unknown key", "known keys here: "+strings.Join(sortedKeys(s), ", "))
				continue
			}
			checkKeys(n.Content[i+1], sub, join(k), add)
		}
	case mapOf:
		if n.Kind != yaml.MappingNode {
			return // the decoder reports the type
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			checkKeys(n.Content[i+1], s.elem, join(n.Content[i].Value), add)
		}
	case listOf:
		if n.Kind != yaml.SequenceNode {
			return
		}
		for i, c := range n.Content {
			checkKeys(c, s.elem, fmt.Sprintf("%s[%d]", path, i), add)
		}
	}
}

func sortedKeys(f fields) []string {
	out := make([]string, 0, len(f))
	for k := range f {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
