<?php
/*
 * Seed 4 (dbalabka/aerys-benchmark): stands in for its ReactPHP server (react/http 0.6 on
 * react/event-loop 0.4's StreamSelectLoop, react/socket 0.5), which cannot be installed here (no
 * Packagist, and Debian has no ReactPHP event loop). What it keeps of that stack: one process, one
 * stream_select() loop over non-blocking PHP streams, one accept per readable event, a response
 * written from a buffer as the socket takes it, and, since react/http 0.6 has no keep-alive,
 * "Connection: close" on every response and the connection closed once it is written.
 *
 * Variants (IOBENCH_VARIANT):
 *   seed   the seed's bug: Content-Length: 12, but the body is "Hello world!" . PHP_EOL, 13 bytes
 *          (the seed's handler computed strlen($data) and then wrote $data . PHP_EOL)
 *   fixed  the 12 bytes that Content-Length declares
 *
 * GET / -> 200 "Hello world!" (Content-Type: text/plain; charset=utf-8); anything else -> 404
 * with a one-line reason (the seed answered 400 "Not Found"). Listens on IOBENCH_LISTEN
 * (host:port). SIGTERM or SIGINT stops it.
 */

declare(strict_types=1);

const BACKLOG = 128;        // connections waiting to be accepted
const READ_SIZE = 65536;    // bytes read per readable event (react/stream's default buffer size)
const MAX_HEAD = 65536;     // a request head larger than this is refused with 431

$variant = getenv('IOBENCH_VARIANT') ?: 'fixed';
$body = match ($variant) {
    'seed' => 'Hello world!' . PHP_EOL,
    'fixed' => 'Hello world!',
    default => null,
};
if ($body === null) {
    fwrite(STDERR, "stream-select: unknown variant \"$variant\"; use seed or fixed\n");
    exit(2);
}

/** Returns a complete response that closes the connection; $length is the declared Content-Length. */
function response(int $status, string $reason, string $body, int $length): string
{
    return "HTTP/1.1 $status $reason\r\n"
        . "Content-Type: text/plain; charset=utf-8\r\n"
        . "Content-Length: $length\r\n"
        . "Connection: close\r\n"
        . "\r\n"
        . $body;
}

// Both canned: strlen('Hello world!') is what the seed declared, whatever it wrote.
$hello = response(200, 'OK', $body, strlen('Hello world!'));
$notFound = response(404, 'Not Found', "not found: only GET / is served\n", 32);
$tooLarge = response(431, 'Request Header Fields Too Large', "request head larger than 64 KiB\n", 32);
$bad = response(400, 'Bad Request', "bad request: malformed request line\n", 36);

/** Picks the answer to one request head (everything before the blank line). */
function answer(string $head, string $hello, string $notFound, string $bad): string
{
    $line = strtok($head, "\r\n");
    $parts = $line === false ? [] : explode(' ', $line);
    if (count($parts) !== 3 || !str_starts_with($parts[2], 'HTTP/1.')) {
        return $bad;
    }
    return $parts[0] === 'GET' && $parts[1] === '/' ? $hello : $notFound;
}

$addr = getenv('IOBENCH_LISTEN') ?: '127.0.0.1:8080';
$ctx = stream_context_create(['socket' => ['backlog' => BACKLOG]]);
$server = @stream_socket_server("tcp://$addr", $errno, $errstr, STREAM_SERVER_BIND | STREAM_SERVER_LISTEN, $ctx);
if ($server === false) {
    fwrite(STDERR, "stream-select: cannot listen on $addr: $errstr\n");
    exit(2);
}
stream_set_blocking($server, false);

$running = true;
pcntl_async_signals(true);
pcntl_signal(SIGTERM, function () use (&$running) { $running = false; });
pcntl_signal(SIGINT, function () use (&$running) { $running = false; });

echo "stream-select ($variant): pid " . getmypid() . ", listening on http://$addr/\n";

/** @var array<int, resource> $socks */
$socks = [];
/** @var array<int, string> $in what each connection sent so far */
$in = [];
/** @var array<int, string> $out what is left to write; set once the request is answered */
$out = [];

while ($running) {
    $read = [$server];
    $write = [];
    foreach ($socks as $id => $s) {
        if (isset($out[$id])) {
            $write[] = $s;
        } else {
            $read[] = $s;
        }
    }
    $except = null;
    // Interrupted by a signal, stream_select returns false with a warning: loop to check $running.
    if (@stream_select($read, $write, $except, 1) === false) {
        continue;
    }
    foreach ($read as $s) {
        if ($s === $server) {
            $c = @stream_socket_accept($server, 0);
            if ($c !== false) {
                stream_set_blocking($c, false);
                $socks[(int) $c] = $c;
                $in[(int) $c] = '';
            }
            continue;
        }
        $id = (int) $s;
        $data = @fread($s, READ_SIZE);
        if ($data === false || ($data === '' && feof($s))) {
            fclose($s);
            unset($socks[$id], $in[$id]);
            continue;
        }
        $in[$id] .= $data;
        $end = strpos($in[$id], "\r\n\r\n");
        if ($end !== false) {
            // One request per connection: what follows the head (a body, a pipelined request) is
            // never read, as the connection closes after this response.
            $out[$id] = answer(substr($in[$id], 0, $end), $hello, $notFound, $bad);
            unset($in[$id]);
        } elseif (strlen($in[$id]) > MAX_HEAD) {
            $out[$id] = $tooLarge;
            unset($in[$id]);
        }
    }
    foreach ($write as $s) {
        $id = (int) $s;
        $n = @fwrite($s, $out[$id]);
        if ($n === false) {
            $out[$id] = '';
        } elseif ($n > 0) {
            $out[$id] = substr($out[$id], $n);
        }
        if ($out[$id] === '') {
            fclose($s);
            unset($socks[$id], $out[$id]);
        }
    }
}

foreach ($socks as $s) {
    fclose($s);
}
fclose($server);
