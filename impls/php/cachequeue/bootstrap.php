<?php
// What every entry point of php-cachequeue loads first: its own classes (App\ -> src/) through
// iobench's PSR-4 loader, and Predis through the autoloader Debian's php-predis installs.

declare(strict_types=1);

require __DIR__ . '/../lib/autoload.php';

iobench_autoload('App\\', __DIR__ . '/src');
iobench_require_debian(['Predis']);
