<?php
// The "pure PHP" consumer of seed 1's later versions (performance-comparison v4.1, pure-php/
// consume): php-amqp's blocking consume() with a callback, PDO on pdo_pgsql, one message at a
// time. For each command: beginTransaction; prepare and execute the INSERT; publish the event on
// the direct exchange "messages"; commit; ack. It speaks iobench's bus report stream on stdout.
//
// Environment: IOBENCH_AMQP_URL, IOBENCH_DATABASE_URL (postgres://), IOBENCH_BUS_PROFILE (seed:
// transient events to exchange "messages", the tail of queue "messages"; durable: persistent
// events confirmed to queue messages.events, which is consumed too).

declare(strict_types=1);

const QUEUE = 'messages';
const EVENT_QUEUE = 'messages.events';
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
$connection = new AMQPConnection($credentials);
$connection->connect();
$channel = new AMQPChannel($connection); // prefetch: php-amqp's default (amqp.prefetch_count, 3), as the seed

$exchange = new AMQPExchange($channel);
$exchange->setName(QUEUE);
$exchange->setType(AMQP_EX_TYPE_DIRECT);
$exchange->setFlags(AMQP_DURABLE);
$exchange->declareExchange();
$queue = new AMQPQueue($channel);
$queue->setName(QUEUE);
$queue->setFlags(AMQP_DURABLE);
$queue->declareQueue();
$queue->bind(QUEUE, '');

$events = null;
$eventQueue = null;
if ($durable) {
    // A connection and channel of their own in confirm mode, so that each event publish waits for
    // its confirm (librabbitmq cannot wait for a confirm on the connection that consume() reads).
    $confirmConnection = new AMQPConnection($credentials);
    $confirmConnection->connect();
    $confirmChannel = new AMQPChannel($confirmConnection);
    $confirmChannel->confirmSelect();
    $confirmChannel->setConfirmCallback(static fn (): bool => false, static fn (): bool => throw new RuntimeException('event nacked'));
    $events = new AMQPExchange($confirmChannel); // the default exchange
    $eventQueue = new AMQPQueue($channel);
    $eventQueue->setName(EVENT_QUEUE);
    $eventQueue->setFlags(AMQP_DURABLE);
    $eventQueue->declareQueue();
}

$db = parse_url(getenv('IOBENCH_DATABASE_URL') ?: '');
$pdo = new PDO(sprintf('pgsql:host=%s;port=%d;dbname=%s', $db['host'] ?? 'localhost', $db['port'] ?? 5432, ltrim($db['path'] ?? '', '/')),
    urldecode($db['user'] ?? ''), urldecode($db['pass'] ?? ''));
$pdo->setAttribute(PDO::ATTR_ERRMODE, PDO::ERRMODE_EXCEPTION);

function report(string $kind, int $seq, AMQPEnvelope $envelope): void
{
    fwrite(STDOUT, sprintf("%s %d %d %d\n", $kind, $seq, (int) (microtime(true) * 1e9), $envelope->isRedelivery() ? 1 : 0));
}

$stop = false;
pcntl_async_signals(true);
pcntl_signal(SIGTERM, static function () use (&$stop) { $stop = true; });
pcntl_signal(SIGINT, static function () use (&$stop) { $stop = true; });

$handle = static function (AMQPEnvelope $envelope, AMQPQueue $from) use ($pdo, $exchange, $events, &$stop): bool {
    $data = json_decode($envelope->getBody(), true, 512, JSON_THROW_ON_ERROR);
    if (($data['type'] ?? '') === 'command') {
        $pdo->beginTransaction();
        try {
            $statement = $pdo->prepare(INSERT);
            $statement->execute([$data['id'], $data['name'], $data['email']]);
            $event = json_encode(['type' => 'event', 'id' => $data['id'], 'seq' => $data['seq'], 'sent_ns' => $data['sent_ns']]);
            if ($events === null) {
                $exchange->publish($event); // transient, no confirm, as the seed
            } else {
                $events->publish($event, EVENT_QUEUE, AMQP_NOPARAM, ['delivery_mode' => 2]);
                $events->getChannel()->waitForConfirm(10.0);
            }
            $pdo->commit();
        } catch (Throwable $throwable) {
            $pdo->rollBack();
            throw $throwable;
        }
        report('c', (int) $data['seq'], $envelope);
    } elseif (($data['type'] ?? '') === 'event') {
        report('e', (int) $data['seq'], $envelope);
    } else {
        fwrite(STDOUT, "x\n");
    }
    $from->ack($envelope->getDeliveryTag());

    return !$stop; // false ends consume() after a signal, with nothing unacked
};

fwrite(STDOUT, "ready\n");
if ($eventQueue !== null) {
    $eventQueue->consume(); // registers a consumer on the same channel; one consume() loop serves both
}
try {
    $queue->consume($handle);
} catch (AMQPQueueException $e) {
    if (!$stop) {
        throw $e;
    }
}
