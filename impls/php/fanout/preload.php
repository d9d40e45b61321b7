<?php
// php-fanout's opcache preload script (impl.yaml start.php_fpm.ini opcache.preload): PHP-FPM runs
// it once at start, and the classes it loads stay compiled and linked in shared memory, so that a
// request does not autoload, load and link them again (what composer's and Symfony's preload
// files do for a deployment). It loads, through Debian's autoloaders, the classes one request of
// each route uses (the user classes declared after a request, with Guzzle 7 and Monolog 2 of
// Debian 12). A class this list lacks is still autoloaded when a request needs it; a name a
// newer package no longer has is skipped.

declare(strict_types=1);

require_once '/usr/share/php/GuzzleHttp/autoload.php';
require_once '/usr/share/php/Monolog/autoload.php';

foreach ([
    'GuzzleHttp\\Client',
    'GuzzleHttp\\ClientInterface',
    'GuzzleHttp\\ClientTrait',
    'GuzzleHttp\\HandlerStack',
    'GuzzleHttp\\Handler\\CurlFactory',
    'GuzzleHttp\\Handler\\CurlFactoryInterface',
    'GuzzleHttp\\Handler\\CurlHandler',
    'GuzzleHttp\\Handler\\CurlMultiHandler',
    'GuzzleHttp\\Handler\\EasyHandle',
    'GuzzleHttp\\Handler\\HeaderProcessor',
    'GuzzleHttp\\Handler\\Proxy',
    'GuzzleHttp\\Handler\\StreamHandler',
    'GuzzleHttp\\Middleware',
    'GuzzleHttp\\PrepareBodyMiddleware',
    'GuzzleHttp\\Promise\\Create',
    'GuzzleHttp\\Promise\\FulfilledPromise',
    'GuzzleHttp\\Promise\\Is',
    'GuzzleHttp\\Promise\\Promise',
    'GuzzleHttp\\Promise\\PromiseInterface',
    'GuzzleHttp\\Promise\\TaskQueue',
    'GuzzleHttp\\Promise\\TaskQueueInterface',
    'GuzzleHttp\\Promise\\Utils',
    'GuzzleHttp\\Psr7\\MessageTrait',
    'GuzzleHttp\\Psr7\\Request',
    'GuzzleHttp\\Psr7\\Response',
    'GuzzleHttp\\Psr7\\Rfc3986',
    'GuzzleHttp\\Psr7\\Stream',
    'GuzzleHttp\\Psr7\\Uri',
    'GuzzleHttp\\Psr7\\Utils',
    'GuzzleHttp\\RedirectMiddleware',
    'GuzzleHttp\\RequestOptions',
    'GuzzleHttp\\TransferStats',
    'GuzzleHttp\\Utils',
    'Monolog\\DateTimeImmutable',
    'Monolog\\Formatter\\FormatterInterface',
    'Monolog\\Formatter\\LineFormatter',
    'Monolog\\Formatter\\NormalizerFormatter',
    'Monolog\\Handler\\AbstractHandler',
    'Monolog\\Handler\\AbstractProcessingHandler',
    'Monolog\\Handler\\ErrorLogHandler',
    'Monolog\\Handler\\FormattableHandlerInterface',
    'Monolog\\Handler\\FormattableHandlerTrait',
    'Monolog\\Handler\\Handler',
    'Monolog\\Handler\\HandlerInterface',
    'Monolog\\Handler\\ProcessableHandlerInterface',
    'Monolog\\Handler\\ProcessableHandlerTrait',
    'Monolog\\Handler\\StreamHandler',
    'Monolog\\Logger',
    'Monolog\\ResettableInterface',
    'Monolog\\Utils',
    'Psr\\Http\\Client\\ClientInterface',
    'Psr\\Http\\Message\\MessageInterface',
    'Psr\\Http\\Message\\RequestInterface',
    'Psr\\Http\\Message\\ResponseInterface',
    'Psr\\Http\\Message\\StreamInterface',
    'Psr\\Http\\Message\\UriInterface',
    'Psr\\Log\\LoggerInterface',
] as $name) {
    class_exists($name) || interface_exists($name) || trait_exists($name);
}
