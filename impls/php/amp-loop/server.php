<?php
/*
 * Seed 4 (dbalabka/aerys-benchmark): stands in for "Aerys NativeReactor", amphp/aerys 0.4 on
 * its stream_select reactor. Aerys cannot be installed here (no Packagist), so this is a small
 * HTTP/1.1 keep-alive responder written directly on amphp/amp 2.6's Loop with its native
 * (stream_select) driver: the one Amp library Debian ships (php-amphp-amp).
 *
 * What it keeps of Aerys 0.4's defaults: keep-alive with at most 1000 requests per connection
 * (the 1000th answer says "Connection: close"), idle connections closed after 6 s, a listen
 * backlog of 128, reads of up to 32 KiB, request heads of at most 32 KiB, one accept per
 * readable event, and pipelined requests answered in order.
 *
 * Variants (IOBENCH_VARIANT):
 *   seed   as the seed ran Aerys: one worker process per core (getconf _NPROCESSORS_ONLN, like
 *          Aerys's default), each with its own SO_REUSEPORT socket on the port, and at most 30
 *          open connections per client IP (Aerys's default connectionsPerIP). As in Aerys, a
 *          connection beyond the limit is accepted and closed at once without a response, and
 *          each worker counts its own, so N workers serve up to 30*N connections of one IP.
 *   fixed  one process and no per-IP limit, as the seed's later fix (`-w 1`, connectionsPerIP
 *          raised above wrk's 100 connections).
 *
 * What differs from Aerys: no HTTP/2, no Date or Server header, no routing layer; the seed
 * answered other paths with 400 "Not Found", this answers 404, and Content-Type says
 * charset=utf-8 where the seed said encoding=utf-8. Aerys's watcher process respawned dead
 * workers; here the master stops the others and exits non-zero, so a benchmark never runs on
 * fewer workers than it says.
 *
 * Listens on IOBENCH_LISTEN (host:port). GET / -> 200 "Hello world!"; anything else -> 404 with
 * a one-line reason. SIGTERM or SIGINT stops the master and every worker.
 */

declare(strict_types=1);

require __DIR__ . '/../lib/autoload.php';
// Debian's Amp autoload.php maps classes only: the function files must come first, since loading
// the Loop class creates a driver, which calls them.
require_once '/usr/share/php/Amp/functions.php';
require_once '/usr/share/php/Amp/Internal/functions.php';
iobench_require_debian(['Amp']);

use Amp\Loop;
use Amp\Loop\NativeDriver;

const BACKLOG = 128;              // Aerys 0.4 socketBacklogSize
const MAX_REQUESTS = 1000;        // Aerys 0.4 maxKeepAliveRequests
const KEEPALIVE_TIMEOUT = 6;      // seconds, Aerys 0.4 keepAliveTimeout
const READ_SIZE = 32768;          // Aerys 0.4 ioGranularity
const MAX_HEAD = 32768;           // Aerys 0.4 maxHeaderSize
const SEED_PER_IP = 30;           // Aerys 0.4 connectionsPerIP

const TEXT = "Content-Type: text/plain; charset=utf-8\r\n";
const HELLO = "HTTP/1.1 200 OK\r\n" . TEXT . "Content-Length: 12\r\n";
const HELLO_BODY = 'Hello world!';
const NOT_FOUND_BODY = "not found: only GET / is served\n";

/** Returns a complete response that closes the connection, for a request that cannot go on. */
function refusal(int $status, string $reason, string $line): string
{
    $body = $line . "\n";
    return "HTTP/1.1 $status $reason\r\n" . TEXT . 'Content-Length: ' . strlen($body) . "\r\nConnection: close\r\n\r\n" . $body;
}

/** One client connection. */
final class Client
{
    public string $in = '';
    public string $out = '';
    public int $served = 0;
    public int $skip = 0;          // request body bytes still to discard
    public bool $closing = false;  // close once $out is written
    public int $lastActive;
    public string $readWatcher = '';
    public ?string $writeWatcher = null;

    /** @param resource $sock */
    public function __construct(public $sock, public string $ip)
    {
        $this->lastActive = time();
    }
}

/** One event loop answering every connection accepted on its listening socket. */
final class Worker
{
    /** @var array<int, Client> */
    private array $clients = [];
    /** @var array<string, int> open connections by client IP */
    private array $perIP = [];
    private string $acceptWatcher = '';

    /** @param resource $server */
    public function __construct(private $server, private int $perIPLimit, private int $masterPid)
    {
    }

    public function run(): void
    {
        $this->acceptWatcher = Loop::onReadable($this->server, fn () => $this->accept());
        Loop::repeat(1000, fn () => $this->sweep());
        Loop::onSignal(SIGTERM, fn () => $this->stop());
        Loop::onSignal(SIGINT, fn () => $this->stop());
        Loop::run();
    }

    private function accept(): void
    {
        $sock = @stream_socket_accept($this->server, 0, $peer);
        if ($sock === false) {
            return; // another worker took it, or the client left
        }
        $ip = substr($peer, 0, (int) strrpos($peer, ':'));
        if ($this->perIPLimit > 0 && ($this->perIP[$ip] ?? 0) >= $this->perIPLimit) {
            fclose($sock); // Aerys: "client denied: too many existing connections"
            return;
        }
        $this->perIP[$ip] = ($this->perIP[$ip] ?? 0) + 1;
        stream_set_blocking($sock, false);
        stream_set_read_buffer($sock, 0);
        $c = new Client($sock, $ip);
        $c->readWatcher = Loop::onReadable($sock, fn () => $this->read($c));
        $this->clients[(int) $sock] = $c;
    }

    private function read(Client $c): void
    {
        $data = @fread($c->sock, READ_SIZE);
        if ($data === false || ($data === '' && feof($c->sock))) {
            $this->close($c);
            return;
        }
        $c->lastActive = time();
        $c->in .= $data;
        $this->parse($c);
        if ($c->out !== '' && $c->writeWatcher === null) {
            $this->write($c);
        }
    }

    /** Answers every complete request in $c->in, in order (pipelining included). */
    private function parse(Client $c): void
    {
        while (!$c->closing) {
            if ($c->skip > 0) {
                $n = min($c->skip, strlen($c->in));
                $c->in = substr($c->in, $n);
                $c->skip -= $n;
                if ($c->skip > 0) {
                    return;
                }
            }
            $end = strpos($c->in, "\r\n\r\n");
            if ($end === false) {
                if (strlen($c->in) > MAX_HEAD) {
                    $this->fail($c, refusal(431, 'Request Header Fields Too Large', 'request head larger than 32 KiB'));
                }
                return;
            }
            $head = substr($c->in, 0, $end);
            $c->in = substr($c->in, $end + 4);
            $this->answer($c, ltrim($head, "\r\n"));
        }
    }

    /** Appends the answer to one request head to $c->out. */
    private function answer(Client $c, string $head): void
    {
        $lines = explode("\r\n", $head);
        $parts = explode(' ', $lines[0]);
        if (count($parts) !== 3 || ($parts[2] !== 'HTTP/1.1' && $parts[2] !== 'HTTP/1.0')) {
            $this->fail($c, refusal(400, 'Bad Request', 'bad request: malformed request line or HTTP version'));
            return;
        }
        [$method, $target, $version] = $parts;
        $keep = $version === 'HTTP/1.1';
        for ($i = 1, $n = count($lines); $i < $n; $i++) {
            $colon = strpos($lines[$i], ':');
            if ($colon === false) {
                $this->fail($c, refusal(400, 'Bad Request', 'bad request: malformed header line'));
                return;
            }
            $name = strtolower(trim(substr($lines[$i], 0, $colon)));
            if ($name === 'connection') {
                $value = strtolower(trim(substr($lines[$i], $colon + 1)));
                $keep = $value === 'close' ? false : ($value === 'keep-alive' ? true : $keep);
            } elseif ($name === 'content-length') {
                $value = trim(substr($lines[$i], $colon + 1));
                if (!ctype_digit($value)) {
                    $this->fail($c, refusal(400, 'Bad Request', 'bad request: malformed Content-Length'));
                    return;
                }
                $c->skip = (int) $value;
            } elseif ($name === 'transfer-encoding') {
                $this->fail($c, refusal(501, 'Not Implemented', 'not implemented: a request body needs a Content-Length'));
                return;
            }
        }
        if (++$c->served >= MAX_REQUESTS) {
            $keep = false;
        }
        // An HTTP/1.0 client keeps the connection only when told so.
        $conn = !$keep ? "Connection: close\r\n" : ($version === 'HTTP/1.0' ? "Connection: keep-alive\r\n" : '');
        if ($method === 'GET' && $target === '/') {
            $c->out .= HELLO . $conn . "\r\n" . HELLO_BODY;
        } else {
            $c->out .= "HTTP/1.1 404 Not Found\r\n" . TEXT . 'Content-Length: ' . strlen(NOT_FOUND_BODY) . "\r\n"
                . $conn . "\r\n" . NOT_FOUND_BODY;
        }
        $c->closing = !$keep;
    }

    private function fail(Client $c, string $response): void
    {
        $c->out .= $response;
        $c->closing = true;
        $c->in = '';
    }

    /** Writes what the socket takes; the rest waits for a writable event. */
    private function write(Client $c): void
    {
        $n = @fwrite($c->sock, $c->out);
        if ($n === false) {
            $this->close($c);
            return;
        }
        $c->out = substr($c->out, $n);
        if ($c->out !== '') {
            $c->writeWatcher ??= Loop::onWritable($c->sock, fn () => $this->write($c));
            return;
        }
        if ($c->writeWatcher !== null) {
            Loop::cancel($c->writeWatcher);
            $c->writeWatcher = null;
        }
        if ($c->closing) {
            $this->close($c);
        }
    }

    private function close(Client $c): void
    {
        Loop::cancel($c->readWatcher);
        if ($c->writeWatcher !== null) {
            Loop::cancel($c->writeWatcher);
        }
        unset($this->clients[(int) $c->sock]);
        if (--$this->perIP[$c->ip] === 0) {
            unset($this->perIP[$c->ip]);
        }
        @fclose($c->sock);
    }

    /** Once a second: closes keep-alive connections idle for KEEPALIVE_TIMEOUT; stops when the master is gone. */
    private function sweep(): void
    {
        $idleSince = time() - KEEPALIVE_TIMEOUT;
        foreach ($this->clients as $c) {
            if ($c->lastActive <= $idleSince && $c->out === '') {
                $this->close($c);
            }
        }
        if ($this->masterPid !== 0 && posix_getppid() !== $this->masterPid) {
            $this->stop();
        }
    }

    private function stop(): void
    {
        Loop::cancel($this->acceptWatcher);
        @fclose($this->server);
        foreach ($this->clients as $c) {
            $this->close($c);
        }
        Loop::stop();
    }
}

function cpuCount(): int
{
    $n = (int) trim((string) @shell_exec('getconf _NPROCESSORS_ONLN 2>/dev/null'));
    return max($n, 1);
}

/** @return resource a non-blocking listening socket on $addr */
function listenSocket(string $addr, bool $reusePort)
{
    $ctx = stream_context_create(['socket' => ['backlog' => BACKLOG, 'so_reuseport' => $reusePort]]);
    $sock = @stream_socket_server("tcp://$addr", $errno, $errstr, STREAM_SERVER_BIND | STREAM_SERVER_LISTEN, $ctx);
    if ($sock === false) {
        fwrite(STDERR, "amp-loop: cannot listen on $addr: $errstr\n");
        exit(2);
    }
    stream_set_blocking($sock, false);
    return $sock;
}

/** Runs one worker on $sock in this process, on the native driver. */
function work($sock, int $perIP, int $masterPid): void
{
    Loop::set(new NativeDriver());
    (new Worker($sock, $perIP, $masterPid))->run();
}

$addr = getenv('IOBENCH_LISTEN') ?: '127.0.0.1:8080';
$variant = getenv('IOBENCH_VARIANT') ?: 'fixed';
[$workers, $perIP] = match ($variant) {
    'seed' => [cpuCount(), SEED_PER_IP],
    'fixed' => [1, 0],
    default => [0, 0],
};
if ($workers === 0) {
    fwrite(STDERR, "amp-loop: unknown variant \"$variant\"; use seed or fixed\n");
    exit(2);
}
$limit = $perIP > 0 ? "$perIP per client IP in each worker" : 'none';

if ($workers === 1) {
    $server = listenSocket($addr, $variant === 'seed');
    echo "amp-loop ($variant): 1 process, pid " . getmypid() . ", Amp NativeDriver, connection limit $limit, listening on http://$addr/\n";
    work($server, $perIP, 0);
    exit(0);
}

// Pre-forked: every worker's socket is bound before the first fork, so all of them are in the
// port's SO_REUSEPORT group (and share the incoming connections) before one can be reached.
$sockets = [];
for ($i = 0; $i < $workers; $i++) {
    $sockets[] = listenSocket($addr, true);
}
$master = getmypid();
$children = [];
foreach ($sockets as $i => $sock) {
    $pid = pcntl_fork();
    if ($pid === -1) {
        fwrite(STDERR, "amp-loop: fork failed\n");
        foreach (array_keys($children) as $child) {
            posix_kill($child, SIGTERM);
        }
        exit(1);
    }
    if ($pid === 0) {
        foreach ($sockets as $j => $other) {
            if ($j !== $i) {
                fclose($other);
            }
        }
        cli_set_process_title("amp-loop worker $i");
        work($sock, $perIP, $master);
        exit(0);
    }
    $children[$pid] = $i;
}
foreach ($sockets as $sock) {
    fclose($sock);
}
echo "amp-loop ($variant): master $master, $workers workers (pids " . implode(' ', array_keys($children))
    . "), Amp NativeDriver, connection limit $limit, listening on http://$addr/\n";

$stopping = false;
$stopAll = function () use (&$stopping, &$children): void {
    $stopping = true;
    foreach (array_keys($children) as $pid) {
        posix_kill($pid, SIGTERM);
    }
};
// Without restarting system calls, a signal ends the blocking pcntl_wait() below, so the handler
// runs at once (with restarts, the wait would go on and the workers would never be told).
pcntl_async_signals(true);
pcntl_signal(SIGTERM, $stopAll, false);
pcntl_signal(SIGINT, $stopAll, false);

$status = 0;
while ($children) {
    $pid = pcntl_wait($st);
    if ($pid <= 0) {
        continue; // interrupted by a signal
    }
    unset($children[$pid]);
    if (!$stopping) {
        fwrite(STDERR, "amp-loop: worker $pid exited unexpectedly; stopping the others\n");
        $status = 1;
        $stopAll();
    }
}
exit($status);
