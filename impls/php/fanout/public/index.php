<?php
// Seed 5's service (appkr/quzzle-async-performance), written anew for iobench: a front
// controller under PHP-FPM behind nginx. Every request builds a new Guzzle client whose handler
// stack logs each exchange, request and response, through Monolog to a file and to PHP's error
// log (the seed's tap middleware and its two handlers), GETs the upstream (IOBENCH_UPSTREAM_URL)
// with "accept: application/json", does IOBENCH_WORK_MS of work (usleep: the request makes no
// progress) and answers the upstream's JSON, re-encoded, with its own handling time in
// Server-Timing. /sync and /async use Guzzle's default handler stack, as the seed's client did:
// send() goes through its CurlHandler (blocking), sendAsync() through its CurlMultiHandler.
// /sync: send(), then the work. /async: the seed's shape, sendAsync() then the work then wait():
// the curl-multi handler sends nothing before wait(), so nothing overlaps. /async-overlap, on an
// explicit CurlMultiHandler: sendAsync(), then the handler ticked (waiting on the call's socket)
// only until curl has written the request, then the whole work, then wait(): the upstream's delay
// runs during the work, and the answer, already in the socket when the work ends, is read by
// wait(). Anything else: 404 in one line.

declare(strict_types=1);

require __DIR__ . '/../../lib/autoload.php';
// Debian's autoloaders, loaded only for a class that opcache's preload (preload.php) did not
// already load: running them on every request cost about 120 us of CPU (their probes for
// optional packages: 30 failed stat calls per request), where composer's classmap would cost
// nothing. Without preload the first class loads them.
spl_autoload_register(static function (string $class): void {
    static $loaded = false;
    if (!$loaded) {
        $loaded = true;
        iobench_require_debian(['GuzzleHttp', 'Monolog']); // SPL then asks the loaders they register
    }
});

use GuzzleHttp\Client;
use GuzzleHttp\Handler\CurlFactory;
use GuzzleHttp\Handler\CurlFactoryInterface;
use GuzzleHttp\Handler\CurlMultiHandler;
use GuzzleHttp\Handler\EasyHandle;
use GuzzleHttp\HandlerStack;
use GuzzleHttp\Middleware;
use GuzzleHttp\Promise\PromiseInterface;
use GuzzleHttp\Psr7\Request;
use Monolog\Handler\ErrorLogHandler;
use Monolog\Handler\StreamHandler;
use Monolog\Logger;
use Psr\Http\Message\RequestInterface;
use Psr\Http\Message\ResponseInterface;

/** LastHandleFactory is Guzzle's CurlFactory that keeps the curl handle it made last, so that
 * /async-overlap can see when curl has written its request (Guzzle's EasyHandle forgets it once
 * the call ends, the CurlHandle stays). */
final class LastHandleFactory implements CurlFactoryInterface
{
    public ?CurlHandle $last = null;

    public function __construct(private CurlFactoryInterface $inner)
    {
    }

    public function create(RequestInterface $request, array $options): EasyHandle
    {
        $easy = $this->inner->create($request, $options);
        $this->last = $easy->handle;
        return $easy;
    }

    public function release(EasyHandle $easy): void
    {
        $this->inner->release($easy);
    }
}

/** exchange_logger is the seed's Monolog logger: a StreamHandler on a file and an
 * ErrorLogHandler (PHP's error log), both in the pool's temporary directory. The error log is a
 * file the worker writes itself (PHP-FPM's default would pass every line through its master and
 * nginx); where the seed's went, its Elastic Beanstalk platform decided (not in its repository). */
function exchange_logger(string $name): Logger
{
    ini_set('error_log', sys_get_temp_dir() . '/iobench-php-fanout-error.log');
    $logger = new Logger($name);
    $logger->pushHandler(new StreamHandler(sys_get_temp_dir() . '/iobench-php-fanout-client.log'));
    $logger->pushHandler(new ErrorLogHandler());
    return $logger;
}

/** exchange_tap is the seed's after-hook for Middleware::tap: once the call ends, one line with
 * the request (method and URI, headers, decoded body) and the response (status, headers,
 * decoded body), or the request and the error. */
function exchange_tap(Logger $logger): callable
{
    $headers = static fn (array $all): array => array_map(static fn ($values) => $values[0] ?? null, $all);
    return static function (RequestInterface $req, array $options, PromiseInterface $promise) use ($logger, $headers): void {
        $request = ['uri' => $req->getMethod() . ' ' . $req->getUri(), 'headers' => $headers($req->getHeaders()),
            'body' => json_decode((string) $req->getBody(), true)];
        $promise->then(static function (ResponseInterface $resp) use ($logger, $headers, $request): void {
            $logger->info('success', ['request' => $request, 'response' => ['status' => $resp->getStatusCode(),
                'headers' => $headers($resp->getHeaders()), 'body' => json_decode((string) $resp->getBody(), true)]]);
        }, static function ($reason) use ($logger, $request): void {
            $logger->error('fail', ['request' => $request, 'error' => (string) $reason]);
        });
    };
}

$start = hrtime(true);
$path = strtok($_SERVER['REQUEST_URI'] ?? '/', '?');
$routes = ['/sync', '/async', '/async-overlap'];
if (!in_array($path, $routes, true)) {
    http_response_code(404);
    echo "no route $path; use /sync, /async or /async-overlap\n";
    return;
}

$upstream = getenv('IOBENCH_UPSTREAM_URL') ?: 'http://127.0.0.1:8081/';
$workUs = (int) round(1000 * (float) (getenv('IOBENCH_WORK_MS') ?: '10'));

// A new client per request, as the seed's controllers built one, with a tap that logs the
// exchange; /async-overlap's stack has an explicit curl-multi handler it can tick.
$logger = exchange_logger('client.' . ltrim($path, '/'));
$handles = null;
$multi = null;
if ($path === '/async-overlap') {
    $handles = new LastHandleFactory(new CurlFactory(50)); // Guzzle's own factory, as its default
    $multi = new CurlMultiHandler(['handle_factory' => $handles]);
}
$stack = HandlerStack::create($multi); // null: Guzzle's default (CurlHandler for send())
$stack->push(Middleware::tap(null, exchange_tap($logger)));
$client = new Client(['handler' => $stack]);
$request = new Request('GET', $upstream, ['accept' => 'application/json']);
$decode = static fn (ResponseInterface $resp) => json_decode((string) $resp->getBody(), true);

switch ($path) {
    case '/sync':
        $data = $decode($client->send($request));
        usleep($workUs);
        break;
    case '/async':
        $promise = $client->sendAsync($request)->then($decode);
        usleep($workUs);
        $data = $promise->wait();
        break;
    default: // /async-overlap: put the call on the wire, then work while it is in flight
        $call = $client->sendAsync($request);
        $promise = $call->then($decode);
        // Tick curl (each tick waits on the call's socket, then steps curl: connect, send) until
        // it has written the request; at most the work's length, then the work goes on anyway.
        $until = hrtime(true) + 1000 * $workUs;
        while ($call->getState() === PromiseInterface::PENDING && hrtime(true) < $until
            && curl_getinfo($handles->last, CURLINFO_REQUEST_SIZE) === 0) {
            $multi->tick();
        }
        usleep($workUs);
        $data = $promise->wait();
}

header('Content-Type: application/json');
header(sprintf('Server-Timing: app;dur=%.3f', (hrtime(true) - $start) / 1e6));
echo json_encode($data);
// The response goes out now, before PHP tears the request down (the Guzzle objects, the curl
// handles and their sockets, the log file), as the seed's Symfony Response::send() does under
// PHP-FPM.
if (function_exists('fastcgi_finish_request')) {
    fastcgi_finish_request();
}
