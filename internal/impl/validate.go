package impl

import (
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/iobench/iobench/internal/suggest"
	"github.com/iobench/iobench/internal/units"
)

var (
	nameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,62}$`)
	envRE  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	iniRE  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.]*$`)
	extRE  = regexp.MustCompile(`^[a-z0-9_]+$`)
)

// validate adds a problem for every field that is missing or wrong.
func (m *Manifest) validate(add ProblemFunc) {
	m.validateName(add)
	oneOf(add, "language", m.Language, Languages)
	m.validateVariants(add)
	if len(m.Workloads) == 0 {
		add("workloads", "missing", "declare at least one of "+strings.Join(Workloads(), ", ")+" with what it needs")
	}
	for _, w := range m.WorkloadNames() {
		m.validateWorkload(add, w, m.Workloads[w])
	}
	m.validateRequires(add)
	m.validateInstall(add)
	m.validateStart(add)
	checkEnv(add, "start.env", m.Start.Env)
	m.validateReady(add)
	if m.Stop.Signal != "" {
		oneOf(add, "stop.signal", strings.TrimPrefix(m.Stop.Signal, "SIG"), Signals)
	}
	checkDuration(add, "stop.timeout", m.Stop.Timeout)
}

// differsHint says what a manifest's differs list holds.
const differsHint = "a line each on how the impl differs from the seed's system, or what it is if it stands for none; [] for none known"

// checkDiffers checks the manifest's top-level differs key (doc is its mapping): present, a
// list, each entry one non-empty line. A missing key names the line to add it after.
func checkDiffers(doc *yaml.Node, add ProblemFunc) {
	var n *yaml.Node
	after := 0
	for i := 0; i+1 < len(doc.Content); i += 2 {
		switch doc.Content[i].Value {
		case "differs":
			n = doc.Content[i+1]
		case "name", "description", "stands_in_for":
			after = max(after, doc.Content[i+1].Line)
		}
	}
	switch {
	case n == nil && after > 0:
		add("differs", "missing", fmt.Sprintf("add a top-level differs: list after line %d: %s", after, differsHint))
	case n == nil:
		add("differs", "missing", "add a top-level differs: list: "+differsHint)
	case n.Kind != yaml.SequenceNode:
		add("differs", fmt.Sprintf("line %d: not a list", n.Line), differsHint)
	default:
		for i, c := range n.Content {
			if c.Kind != yaml.ScalarNode || strings.TrimSpace(c.Value) == "" || strings.Contains(c.Value, "\n") {
				add(fmt.Sprintf("differs[%d]", i), fmt.Sprintf("line %d: not one line of text", c.Line), differsHint)
			}
		}
	}
}

// validateName checks the one naming rule: <language>-<folder>.
func (m *Manifest) validateName(add ProblemFunc) {
	want := ""
	if m.Dir != "" && m.Language != "" {
		want = m.Language + "-" + filepath.Base(m.Dir)
	}
	hint := "name an impl <language>-<folder>, e.g. python-pika-publisher for impls/python/pika-publisher"
	if want != "" {
		hint = fmt.Sprintf("name it %q: <language>-<folder>", want)
	}
	switch {
	case m.Name == "":
		add("name", "missing", hint)
	case !nameRE.MatchString(m.Name):
		add("name", fmt.Sprintf("%q is not a valid name", m.Name), "use lower-case letters, digits and '-'; "+hint)
	case want != "" && m.Name != want, m.Language != "" && !strings.HasPrefix(m.Name, m.Language+"-"):
		add("name", fmt.Sprintf("%q does not follow the rule <language>-<folder>", m.Name), hint)
	}
}

// validateVariants checks the variants: at least one, each named once, with a mode, known
// expected findings and a valid environment.
func (m *Manifest) validateVariants(add ProblemFunc) {
	if len(m.Variants) == 0 {
		add("variants", "missing", "declare at least one, e.g. variants: [{name: async, mode: async, description: ...}]")
	}
	seen := map[string]bool{}
	for i, v := range m.Variants {
		f := fmt.Sprintf("variants[%d]", i)
		switch {
		case v.Name == "":
			add(f+".name", "missing", "name the variant, e.g. sync, async or seed")
		case !nameRE.MatchString(v.Name):
			add(f+".name", fmt.Sprintf("%q is not a valid name", v.Name), "use lower-case letters, digits and '-'")
		case seen[v.Name]:
			add(f+".name", fmt.Sprintf("%q used twice", v.Name), "give each variant its own name")
		}
		seen[v.Name] = true
		oneOf(add, f+".mode", v.Mode, Modes)
		checkEnv(add, f+".env", v.Env)
		for j, id := range v.Expect {
			ff := fmt.Sprintf("%s.expect[%d]", f, j)
			if _, ok := Findings[id]; !ok {
				add(ff, fmt.Sprintf("unknown finding %q", id), "use one of "+strings.Join(FindingIDs(), ", "))
			} else if slices.Index(v.Expect, id) != j {
				add(ff, fmt.Sprintf("%q listed twice", id), "list each finding once")
			}
		}
	}
}

// validateWorkload checks the section the impl declares for workload id: a registered workload,
// its routes if it serves HTTP, then the workload's own rules.
func (m *Manifest) validateWorkload(add ProblemFunc, id string, section any) {
	f := "workloads." + id
	sec, ok := sections[id]
	if !ok {
		add(f, "unknown workload", strings.TrimPrefix(suggest.Hint(id, Workloads())+" choose from "+strings.Join(Workloads(), ", "), " "))
		return
	}
	if r, ok := section.(router); ok {
		checkRoutes(add, f, r.routes())
	}
	if sec.check != nil {
		sec.check(m, f, section, add)
	}
}

// checkRoutes checks an HTTP workload's routes: at least one, each a path.
func checkRoutes(add ProblemFunc, f string, routes []string) {
	if len(routes) == 0 {
		add(f+".routes", "missing", "list the routes served, e.g. [\"/\"] (docs/IMPLS.md, The HTTP routes)")
	}
	for i, r := range routes {
		if !strings.HasPrefix(r, "/") {
			add(fmt.Sprintf("%s.routes[%d]", f, i), fmt.Sprintf("%q does not start with /", r), "write the path, e.g. /cache/redis")
		}
	}
}

func (m *Manifest) validateRequires(add ProblemFunc) {
	lists := []struct {
		field      string
		reqs       []Requirement
		language   string // the only language the list is for; "" for any
		needsHint  bool   // no toolchain can derive the hint
		needsFile  bool
		whatToName string
	}{
		{"requires.commands", m.Requires.Commands, "", true, false, "the command"},
		{"requires.python", m.Requires.Python, "python", false, false, "the package"},
		{"requires.node", m.Requires.Node, "node", false, false, "the package"},
		{"requires.php_extensions", m.Requires.PHPExtensions, "php", false, false, "the extension as php -m lists it"},
		{"requires.php_libraries", m.Requires.PHPLibraries, "php", true, true, "the library, e.g. symfony/yaml"},
	}
	for _, l := range lists {
		if len(l.reqs) > 0 && l.language != "" && m.Language != l.language {
			add(l.field, fmt.Sprintf("%s prerequisites for a %s impl", l.language, m.Language), "move them to a "+l.language+" impl or drop them")
		}
		for i, r := range l.reqs {
			f := fmt.Sprintf("%s[%d]", l.field, i)
			if r.Name == "" {
				add(f+".name", "missing", "name "+l.whatToName)
			}
			if l.needsHint && r.Hint == "" {
				add(f+".hint", "missing", "say how to install it, e.g. 'apt-get install php-symfony-yaml'")
			}
			if l.needsFile && !filepath.IsAbs(r.File) {
				add(f+".file", fmt.Sprintf("%q is not an absolute path", r.File), "give the file the Debian package installs, e.g. /usr/share/php/Symfony/Component/Yaml/autoload.php")
			}
		}
	}
}

func (m *Manifest) validateInstall(add ProblemFunc) {
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

// validateStart checks that the impl gives exactly one way to start: a command, or for a PHP web
// app, PHP-FPM behind nginx (php_fpm).
func (m *Manifest) validateStart(add ProblemFunc) {
	hasCommand := len(m.Start.Command) > 0
	switch {
	case hasCommand && m.Start.PHPFPM != nil:
		add("start", "both command and php_fpm given", "keep one: php_fpm runs the app under PHP-FPM and nginx, command runs anything else")
	case m.Start.PHPFPM != nil:
		m.validatePHPFPM(add)
	case !hasCommand || m.Start.Command[0] == "":
		add("start.command", "missing", `give the command as a list, e.g. ["python", "server.py"]`)
	}
}

// validatePHPFPM checks a php_fpm start: a PHP impl serving HTTP, whose front controller is a
// file in its document root, with no readiness of its own.
func (m *Manifest) validatePHPFPM(add ProblemFunc) {
	if m.Language != "" && m.Language != "php" {
		add("start.php_fpm", "PHP-FPM for a "+m.Language+" impl", "only PHP impls start with php_fpm; give start.command")
	}
	if !slices.ContainsFunc(m.WorkloadNames(), func(w string) bool { return sections[w].serves() }) {
		add("start.php_fpm", "serves HTTP, but no HTTP workload is declared", "declare one of "+strings.Join(httpWorkloads(), ", ")+" with its routes")
	}
	if m.Ready.Log != "" || m.Ready.TCP != "" {
		add("ready", "PHP-FPM's readiness is iobench's", "drop ready.log and ready.tcp; keep ready.timeout if needed")
	}
	if s := m.Start.PHPFPM.Script; s != "" && (filepath.IsAbs(s) || strings.HasPrefix(filepath.Clean(s), "..")) {
		add("start.php_fpm.script", fmt.Sprintf("%q is outside the document root", s), "give the front controller's path in root, e.g. index.php")
		return
	}
	rel := filepath.Join(or(m.Start.PHPFPM.Root, "public"), or(m.Start.PHPFPM.Script, "index.php"))
	m.checkFile(add, "start.php_fpm", rel, "put the front controller there, or set root (the document root) and script")
	for k, v := range m.Start.PHPFPM.INI {
		if !iniRE.MatchString(k) || strings.ContainsAny(v, "\n\r") {
			add("start.php_fpm.ini", fmt.Sprintf("%q: %q is not a php.ini setting", k, v), "give php.ini names and one-line values, e.g. opcache.validate_timestamps: \"0\"")
		}
	}
	m.validateExtensions(add)
}

// validateExtensions checks start.php_fpm.extensions, when given: names of extensions, among them
// every one the impl requires (the pool would not load it otherwise).
func (m *Manifest) validateExtensions(add ProblemFunc) {
	exts := m.Start.PHPFPM.Extensions
	if exts == nil {
		return
	}
	for _, e := range exts {
		if !extRE.MatchString(e) {
			add("start.php_fpm.extensions", fmt.Sprintf("%q is not an extension's name", e), "give names as php -m prints them in lower case, e.g. curl, opcache")
		}
	}
	for _, r := range m.Requires.PHPExtensions {
		if !slices.Contains(exts, r.Name) {
			add("start.php_fpm.extensions", fmt.Sprintf("lacks %q, which requires.php_extensions names", r.Name), "add it: the pool loads only the extensions listed")
		}
	}
}

func (m *Manifest) validateReady(add ProblemFunc) {
	switch {
	case m.Start.PHPFPM != nil:
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
}

// checkFile adds a problem when rel is not a file inside the impl's folder.
func (m *Manifest) checkFile(add ProblemFunc, field, rel, hint string) {
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

func checkEnv(add ProblemFunc, field string, env map[string]string) {
	for k := range env {
		if !envRE.MatchString(k) {
			add(field+"."+k, "not a valid environment variable name", "use letters, digits and '_'")
		}
	}
}

func oneOf(add ProblemFunc, field, v string, allowed []string) {
	switch {
	case v == "":
		add(field, "missing", "use one of "+strings.Join(allowed, ", "))
	case !slices.Contains(allowed, v):
		add(field, fmt.Sprintf("%q", v), "use one of "+strings.Join(allowed, ", "))
	}
}

func checkDuration(add ProblemFunc, field, v string) {
	if v == "" {
		return
	}
	if d, err := units.ParseDuration(v); err != nil || d == 0 {
		add(field, fmt.Sprintf("%q is not a positive duration", v), "write e.g. 30s or 2m")
	}
}

// schema nodes: which keys a mapping may have, so that a misspelt key is reported, not ignored.
type (
	leaf   struct{}
	fields map[string]any
	mapOf  struct{ elem any }
	listOf struct{ elem any }
)

// sectionsSchema is the schema of workloads: each key a workload, whose section takes the keys
// of the type it registered (an unknown workload is validate's to report).
type sectionsSchema struct{}

// manifestSchema is the keys a manifest takes: Manifest's yaml tags, and each workload's section.
var manifestSchema = func() fields {
	f := schemaOf(reflect.TypeFor[Manifest]()).(fields)
	f["workloads"] = sectionsSchema{}
	return f
}()

// schemaOf returns the keys a value of type t takes when decoded from YAML: a struct's yaml tags
// (an inline struct's among them), a map's or a list's elements' keys, none for anything else.
func schemaOf(t reflect.Type) any {
	switch t.Kind() {
	case reflect.Pointer:
		return schemaOf(t.Elem())
	case reflect.Map:
		return mapOf{schemaOf(t.Elem())}
	case reflect.Slice:
		return listOf{schemaOf(t.Elem())}
	case reflect.Struct:
		f := fields{}
		for i := range t.NumField() {
			sf := t.Field(i)
			name, opts, _ := strings.Cut(sf.Tag.Get("yaml"), ",")
			switch {
			case !sf.IsExported() || name == "-":
			case opts == "inline":
				for k, v := range schemaOf(sf.Type).(fields) {
					f[k] = v
				}
			default:
				f[or(name, strings.ToLower(sf.Name))] = schemaOf(sf.Type)
			}
		}
		return f
	}
	return leaf{}
}

// movedKeys are keys of an older manifest format, with where they went.
var movedKeys = map[string]string{
	"mode": "the mode is a variant's now: variants: [{name: async, mode: async}]",
}

// checkKeys reports keys the schema does not know, with the keys it does.
func checkKeys(n *yaml.Node, schema any, path string, add ProblemFunc) {
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
				hint := "known keys here: " + strings.Join(sortedKeys(s), ", ")
				if moved, ok := movedKeys[k]; ok && path == "" {
					hint = moved
				}
				add(join(k), "unknown key", hint)
				continue
			}
			checkKeys(n.Content[i+1], sub, join(k), add)
		}
	case sectionsSchema:
		if n.Kind != yaml.MappingNode {
			return // the decoder reports the type
		}
		for i := 0; i+1 < len(n.Content); i += 2 {
			if sec, ok := sections[n.Content[i].Value]; ok {
				checkKeys(n.Content[i+1], sec.schema(), join(n.Content[i].Value), add)
			}
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
