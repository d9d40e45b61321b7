<?php
// iobench's PSR-4 autoloader for PHP impls, in place of composer (Packagist cannot be reached;
// libraries come from Debian packages). An impl's entry point does:
//
//     require __DIR__ . '/../lib/autoload.php';
//     iobench_autoload('App\\', __DIR__ . '/src');              // its own classes
//     iobench_require_debian(['Symfony/Component/Yaml', 'React/EventLoop']);
//
// iobench_autoload maps a namespace prefix to a folder (App\Http\Server -> src/Http/Server.php).
// iobench_require_debian loads the autoload.php that Debian's php-* packages install under
// /usr/share/php/<path>/, where present; `iobench verify` has already checked, from the
// manifest's requires.php_libraries, that the packages are installed.

declare(strict_types=1);

function iobench_autoload(string $prefix, string $dir): void
{
    $prefix = trim($prefix, '\\') . '\\';
    $dir = rtrim($dir, '/') . '/';
    spl_autoload_register(static function (string $class) use ($prefix, $dir): void {
        if (strncmp($class, $prefix, strlen($prefix)) !== 0) {
            return;
        }
        $file = $dir . str_replace('\\', '/', substr($class, strlen($prefix))) . '.php';
        if (is_file($file)) {
            require $file;
        }
    });
}

/** @param list<string> $paths library folders under /usr/share/php, e.g. Symfony/Component/Yaml */
function iobench_require_debian(array $paths, string $root = '/usr/share/php'): void
{
    foreach ($paths as $path) {
        $file = rtrim($root, '/') . '/' . trim($path, '/') . '/autoload.php';
        if (is_file($file)) {
            require_once $file;
        }
    }
}
