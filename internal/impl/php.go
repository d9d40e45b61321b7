package impl

import (
	"context"
	"log/slog"
	"os/exec"
	"slices"
	"strings"

	"github.com/iobench/iobench/internal/service"
)

// php is the PHP toolchain: Debian packages only, since Packagist cannot be reached and composer
// is not used. Nothing is installed: Check finds the interpreter (and PHP-FPM and nginx for a
// start.php_fpm impl), each extension in `php -m` (and `php-fpm -m`) and each library by the file
// its Debian package installs, and names the package to apt-get for every one missing. Impls load their own classes and Debian's with the small PSR-4 autoloader
// in impls/php/lib/autoload.php (see docs/IMPLS.md).
type php struct{}

// phpHint installs the PHP interpreter (the command-line one; impls serve HTTP themselves).
const phpHint = "apt-get install php8.2-cli"

func (php) install(context.Context, *Installation, *slog.Logger) error { return nil }

// check looks for php (and for a php_fpm impl, PHP-FPM and nginx), then for every extension
// the manifest requires, loaded by the CLI and by PHP-FPM alike, and every library.
func (php) check(ctx context.Context, inst *Installation, miss missFunc) {
	m := inst.Manifest
	bin, err := exec.LookPath("php")
	if err != nil {
		miss("command", "php", phpHint)
		return
	}
	bins := []string{bin}
	if m.Start.PHPFPM != nil {
		if fpm, err := service.PHPFPMBinary(); err != nil {
			miss("command", "php-fpm8.2", "apt-get install php8.2-fpm")
		} else {
			bins = append(bins, fpm)
		}
		if err := service.Installed("nginx"); err != nil {
			miss("command", "nginx", "apt-get install nginx")
		}
	}
	if len(m.Requires.PHPExtensions) > 0 {
		var loaded []map[string]bool
		for _, b := range bins {
			loaded = append(loaded, phpModules(ctx, b))
		}
		for _, r := range m.Requires.PHPExtensions {
			if slices.ContainsFunc(loaded, func(l map[string]bool) bool { return !l[strings.ToLower(r.Name)] }) {
				miss("PHP extension", r.Name, or(r.Hint, "apt-get install "+phpExtensionPackage(r.Name)))
			}
		}
	}
	for _, r := range m.Requires.PHPLibraries {
		if !exists(r.File) {
			miss("PHP library", r.Name, r.Hint+" (looked for "+r.File+")")
		}
	}
}

// phpModules returns the extensions `php -m` lists, lower-cased.
func phpModules(ctx context.Context, bin string) map[string]bool {
	loaded := map[string]bool{}
	out, err := exec.CommandContext(ctx, bin, "-m").Output()
	if err != nil {
		return loaded
	}
	for _, l := range strings.Split(string(out), "\n") {
		loaded[strings.ToLower(strings.TrimSpace(l))] = true
	}
	return loaded
}

// phpExtensionPackage returns the Debian package that provides a PHP extension: php-NAME (the
// php-defaults package of a bundled extension, or the PECL one), except for the PDO drivers,
// which come with their database's package.
func phpExtensionPackage(ext string) string {
	ext = strings.ToLower(ext)
	switch ext {
	case "pdo_pgsql":
		return "php-pgsql"
	case "pdo_mysql", "mysqli":
		return "php-mysql"
	case "pdo_sqlite":
		return "php-sqlite3"
	}
	return "php-" + ext
}
