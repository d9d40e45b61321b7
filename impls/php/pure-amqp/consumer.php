<?php
// The "pure PHP" consumer of seed 1's later versions (performance-comparison v4.1, pure-php/
// consume): php-amqp's blocking consume() with a callback, PDO on pdo_pgsql, one message at a
// time. For each command: beginTransaction; prepare and execute the INSERT; publish the event on
// the direct exchange "messages"; commit; ack. It speaks iobench's bus report stream on stdout.
//
// Environment: IOBENCH_AMQP_URL, IOBENCH_DATABASE_URL (postgres://), IOBENCH_BUS_PROFILE (seed:
// transient events to exchange "messages", the tail of queue "messages"; durable: persistent
// events confirmed to queue messages.events, which is consumed too).
//
// Broker restarts (iobench's --fault restart-broker): php-amqp has no recovery, so the consumer
// loops. When the broker is lost (an AMQPException out of consume(), a publish, its confirm or an
// ack), it connects again with back-off (Iobench\Backoff: 100 ms doubling to 2 s, given up after
// 60 s), declares its exchange and queues and consumes again. A publish lost with the connection
// rolls the transaction back and reports nothing; a message reported whose ack was lost comes back
// redelivered, and iobench counts it twice.
//
// PostgreSQL restarts (--fault restart-postgres): pdo_pgsql reports a connection the server closed
// as SQLSTATE HY000 ("terminating connection due to administrator command", then "no connection to
// the server"), as it reports a failed command, so after a PDOException in a command's transaction
// the consumer asks the connection: if a SELECT 1 fails too, the database was lost. The command
// then reports nothing and is nacked with requeue (never rejected), so the broker redelivers it
// (ON CONFLICT makes that safe; an event published before the lost commit comes again, a duplicate
// iobench counts); the consumer drops the PDO, which may still believe a transaction is active,
// and connects again with its own back-off (Iobench\Backoff, as for the broker) before it waits
// for more deliveries, on the consumers already registered. Any other error of a command's
// transaction leaves consume() as before: the broker's as a lost broker, the rest uncaught.
//
// Stopping (SIGTERM, SIGINT): the handler sets $stop, and stopped() runs the handlers of the signals
// received so far and says whether one came. Signals are dispatched there only, not asynchronously:
// an asynchronous dispatch that falls while an exception is pending (one thrown by consume() during
// whose wait the signal came) calls no handler and drops the signal (php-src, ext/pcntl;
// php/php-src#23624). A busy consumer asks stopped() at the end of each callback, whose false
// return ends consume() once the message in hand is acked; the deliveries prefetched but not
// handled are requeued by the broker when the connection closes at exit. An idle consumer is
// blocked in consume()'s wait for the next delivery, which a signal does not end (librabbitmq polls
// again on EINTR), so the consuming connection has a read timeout, IDLE_WAKE: consume() then
// throws AMQPQueueException "Consumer timeout exceed" (php-amqp, amqp_queue.c), with the
// connection and its consumers intact (librabbitmq times only the wait for a delivery's first
// frame; a delivery once begun is read whole). That is no broker loss: the loop asks stopped() and
// waits again with AMQP_JUST_CONSUME, on the consumers already registered (a plain consume() would
// add one each time), without reconnecting. Under load a delivery is always waiting and the
// timeout never fires; idle, the consumer wakes every IDLE_WAKE and exits within one of a signal.

declare(strict_types=1);

require __DIR__ . '/../lib/autoload.php';
iobench_autoload('Iobench\\', __DIR__ . '/../lib');

use Iobench\Backoff;

const QUEUE = 'messages';
const EVENT_QUEUE = 'messages.events';
// The read timeout of the consuming connection, in seconds: how long an idle consumer may take to
// see a stop signal (see above).
const IDLE_WAKE = 0.25;
// What php-amqp's consume() throws when no delivery came within the read timeout.
const IDLE_TIMEOUT = 'Consumer timeout exceed';
// The seed's INSERT, made idempotent on id so that a command redelivered after a crash is acked
// without a second row (the seed's plain INSERT would throw out of consume()).
const INSERT = 'INSERT INTO customers (id, name, email) VALUES (?, ?, ?) ON CONFLICT (id) DO NOTHING';

$durable = getenv('IOBENCH_BUS_PROFILE') === 'durable';
$amqp = parse_url(getenv('IOBENCH_AMQP_URL') ?: 'amqp://guest:guest@localhost:5672/');
$path = ltrim($amqp['path'] ?? '', '/');
$credentials = [
    'host' => $amqp['host'] ?? 'localhost',
    'port' => $amqp['port'] ?? 5672,
    'vhost' => $path === '' ? '/' : urldecode($path),
    'login' => urldecode($amqp['user'] ?? 'guest'),
    'password' => urldecode($amqp['pass'] ?? 'guest'),
];

/**
 * Connects to the broker and declares the topology: the command queue bound to the direct
 * exchange "messages" and, in the durable profile, the event queue and a connection of its own in
 * confirm mode for the events. Returns the session's objects.
 */
function openSession(array $credentials, bool $durable): array
{
    $connection = new AMQPConnection($credentials + ['read_timeout' => IDLE_WAKE]);
    $connection->connect();
    $channel = new AMQPChannel($connection); // prefetch: php-amqp's default (amqp.prefetch_count, 3), as the seed
    $exchange = new AMQPExchange($channel);
    $exchange->setName(QUEUE);
    $exchange->setType(AMQP_EX_TYPE_DIRECT);
    $exchange->setFlags(AMQP_DURABLE);
    $exchange->declareExchange();
    $queue = durableQueue($channel, QUEUE);
    $queue->bind(QUEUE, '');
    $session = ['connections' => [$connection], 'queue' => $queue, 'exchange' => $exchange, 'events' => null, 'eventQueue' => null];
    if ($durable) {
        // A connection and channel of their own in confirm mode, so that each event publish waits for
        // its confirm (librabbitmq cannot wait for a confirm on the connection that consume() reads).
        $confirmConnection = new AMQPConnection($credentials);
        $confirmConnection->connect();
        $confirmChannel = new AMQPChannel($confirmConnection);
        $confirmChannel->confirmSelect();
        $confirmChannel->setConfirmCallback(static fn (): bool => false, static fn (): bool => throw new RuntimeException('event nacked'));
        $session['connections'][] = $confirmConnection;
        $session['events'] = new AMQPExchange($confirmChannel); // the default exchange
        $session['eventQueue'] = durableQueue($channel, EVENT_QUEUE);
    }

    return $session;
}

function durableQueue(AMQPChannel $channel, string $name): AMQPQueue
{
    $queue = new AMQPQueue($channel);
    $queue->setName($name);
    $queue->setFlags(AMQP_DURABLE);
    $queue->declareQueue();

    return $queue;
}

/** Closes what is left of a lost session's connections. */
function closeSession(array $session): void
{
    foreach ($session['connections'] as $connection) {
        try {
            $connection->disconnect();
        } catch (AMQPException) {
        }
    }
}

/** A new session after the broker was lost, after $backoff's waits; null when stopped meanwhile. */
function reconnect(array $credentials, bool $durable, Backoff $backoff, Throwable $cause, callable $stopped): ?array
{
    while (!$stopped()) {
        $backoff->wait($cause);
        try {
            return openSession($credentials, $durable);
        } catch (AMQPException $e) {
            $cause = $e;
        }
    }

    return null;
}

/** Thrown out of consume() by a command whose transaction failed because the database was lost. */
final class DatabaseLost extends RuntimeException
{
}

/** A new connection to PostgreSQL; a PDOException when it cannot connect. */
function connectDatabase(array $db): PDO
{
    $pdo = new PDO(sprintf('pgsql:host=%s;port=%d;dbname=%s', $db['host'] ?? 'localhost', $db['port'] ?? 5432, ltrim($db['path'] ?? '', '/')),
        urldecode($db['user'] ?? ''), urldecode($db['pass'] ?? ''));
    $pdo->setAttribute(PDO::ATTR_ERRMODE, PDO::ERRMODE_EXCEPTION);

    return $pdo;
}

/**
 * Whether $pdo still answers a SELECT 1: pdo_pgsql gives a connection the server closed the same
 * SQLSTATE (HY000) as a failed command, so only the connection itself can tell them apart.
 */
function databaseAnswers(PDO $pdo): bool
{
    try {
        $pdo->query('SELECT 1');

        return true;
    } catch (PDOException) {
        return false;
    }
}

/**
 * Rolls back what is left of a failed transaction, silently: on a lost connection the ROLLBACK
 * fails too (or PDO thinks no transaction began), and the error that counts is the first one.
 */
function rollBackQuietly(PDO $pdo): void
{
    try {
        if ($pdo->inTransaction()) {
            $pdo->rollBack();
        }
    } catch (PDOException) {
    }
}

/** A new PDO after the database was lost, after $backoff's waits; null when stopped meanwhile. */
function reconnectDatabase(array $db, Backoff $backoff, Throwable $cause, callable $stopped): ?PDO
{
    while (!$stopped()) {
        $backoff->wait($cause);
        try {
            return connectDatabase($db);
        } catch (PDOException $e) { // refused while PostgreSQL is down, or its startup's FATAL
            $cause = $e;
        }
    }

    return null;
}

function report(string $kind, int $seq, AMQPEnvelope $envelope): void
{
    fwrite(STDOUT, sprintf("%s %d %d %d\n", $kind, $seq, (int) (microtime(true) * 1e9), $envelope->isRedelivery() ? 1 : 0));
}

$db = parse_url(getenv('IOBENCH_DATABASE_URL') ?: '');
$pdo = connectDatabase($db); // a wrong URL fails here, at once

$stop = false;
pcntl_async_signals(false); // dispatched by stopped() only (see above)
pcntl_signal(SIGTERM, static function () use (&$stop) { $stop = true; });
pcntl_signal(SIGINT, static function () use (&$stop) { $stop = true; });
$stopped = static function () use (&$stop): bool {
    pcntl_signal_dispatch();

    return $stop;
};

// The handler of one session and one database connection: an exception (the publish's, its
// confirm's, the ack's, the database's) leaves consume(), the transaction rolled back. A database
// lost under the transaction leaves as DatabaseLost, the command nacked back to its queue.
$handler = static function (array $session, PDO $pdo) use ($stopped): Closure {
    return static function (AMQPEnvelope $envelope, AMQPQueue $from) use ($pdo, $session, $stopped): bool {
        $data = json_decode($envelope->getBody(), true, 512, JSON_THROW_ON_ERROR);
        if (($data['type'] ?? '') === 'command') {
            try {
                $pdo->beginTransaction(); // the first to fail when the database went away between commands
                $statement = $pdo->prepare(INSERT);
                $statement->execute([$data['id'], $data['name'], $data['email']]);
                $event = json_encode(['type' => 'event', 'id' => $data['id'], 'seq' => $data['seq'], 'sent_ns' => $data['sent_ns']]);
                if ($session['events'] === null) {
                    $session['exchange']->publish($event); // transient, no confirm, as the seed
                } else {
                    $session['events']->publish($event, EVENT_QUEUE, AMQP_NOPARAM, ['delivery_mode' => 2]);
                    $session['events']->getChannel()->waitForConfirm(10.0);
                }
                $pdo->commit();
            } catch (Throwable $throwable) {
                rollBackQuietly($pdo);
                if ($throwable instanceof PDOException && !databaseAnswers($pdo)) {
                    $from->nack($envelope->getDeliveryTag(), AMQP_REQUEUE); // redelivered, never rejected
                    throw new DatabaseLost('database lost', 0, $throwable);
                }
                throw $throwable;
            }
            report('c', (int) $data['seq'], $envelope);
        } elseif (($data['type'] ?? '') === 'event') {
            report('e', (int) $data['seq'], $envelope);
        } else {
            fwrite(STDOUT, "x\n");
        }
        $from->ack($envelope->getDeliveryTag());

        return !$stopped(); // false ends consume() after a signal, with nothing unacked
    };
};

/**
 * Consumes $session until a delivery's callback returns false (stopped) or its read timeout ends
 * the wait for a delivery (the consumer is idle; the session is intact). It registers the
 * session's consumers on the first call ($registered false) and only waits on them after that.
 */
function consume(array $session, Closure $callback, bool $registered): void
{
    if ($registered) {
        $session['queue']->consume($callback, AMQP_JUST_CONSUME);

        return;
    }
    if ($session['eventQueue'] !== null) {
        $session['eventQueue']->consume(); // registers a consumer on the same channel; one consume() loop serves both
    }
    $session['queue']->consume($callback);
}

$session = openSession($credentials, $durable); // a wrong URL fails here, at once
fwrite(STDOUT, "ready\n");
$backoff = new Backoff();
$started = microtime(true);
$databaseBackoff = new Backoff('database');
$databaseStarted = $started;
$callback = $handler($session, $pdo);
$registered = false;
while ($session !== null && !$stopped()) {
    try {
        consume($session, $callback, $registered);
    } catch (DatabaseLost $e) {
        $cause = $e->getPrevious();
        fwrite(STDERR, sprintf("database lost: %s: %s; reconnecting\n", get_class($cause), $cause->getMessage()));
        $databaseBackoff->ended($databaseStarted);
        // a new PDO: the lost one may still believe a transaction is active
        $pdo = reconnectDatabase($db, $databaseBackoff, $cause, $stopped);
        if ($pdo === null) {
            break;
        }
        $callback = $handler($session, $pdo);
        $databaseStarted = microtime(true);
        $registered = true; // the session is intact: wait again on its consumers
    } catch (AMQPException $e) {
        if ($stopped()) {
            break;
        }
        if ($e instanceof AMQPQueueException && $e->getMessage() === IDLE_TIMEOUT) {
            $registered = true; // idle: ask stopped(), then wait again
            continue;
        }
        fwrite(STDERR, sprintf("broker lost: %s: %s; reconnecting\n", get_class($e), $e->getMessage()));
        closeSession($session);
        $backoff->ended($started);
        $session = reconnect($credentials, $durable, $backoff, $e, $stopped);
        if ($session !== null) {
            $callback = $handler($session, $pdo);
        }
        $started = microtime(true);
        $registered = false;
    }
}
