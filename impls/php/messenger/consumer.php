<?php
// Seed 1's symfony/messenger consumer, on Symfony Messenger 5.4 used standalone (Debian's
// packages, no framework): a MessageBus with Send and Handle middleware, the AMQP transport
// (php-amqp), a Worker polling with basic.get, and Doctrine DBAL 3 on pdo_pgsql. One process,
// one message at a time. It speaks iobench's bus report stream on stdout (docs/IMPLS.md).
//
// Environment: IOBENCH_AMQP_URL, IOBENCH_DATABASE_URL (postgres://), IOBENCH_VARIANT (seed: the
// seed's plain INSERT; fixed: ignore an id already stored), IOBENCH_BUS_PROFILE (seed: transient
// messages, events to the seed's fanout exchange "messages", the tail of queue "messages";
// durable: persistent messages, events confirmed to queue messages.events).
//
// Broker restarts (iobench's --fault restart-broker): the seed's Worker ends with the
// TransportException of a lost broker, as the seed's did (the command in hand reported failed and
// rejected on the way). PostgreSQL restarts (--fault restart-postgres): the seed's handler fails
// every command from then on, each reported failed and rejected, as its connection never comes
// back. The fixed variant's Worker runs in a loop, as a supervisor would restart it: each run
// gets new transports (new connections, which declare the exchange and queues again) and a new
// database connection, with back-off (Iobench\Backoff: 100 ms doubling to 2 s, given up after
// 60 s). A command whose event could not be published, or whose transaction the lost database
// broke, is rolled back and neither reported nor rejected (ReportMiddleware,
// KeepOnConnectionLoss): the broker redelivers it; a message reported whose ack was lost comes
// back too, and iobench counts it twice.

declare(strict_types=1);

require __DIR__ . '/../lib/autoload.php';
iobench_autoload('App\\', __DIR__ . '/src');
iobench_autoload('Iobench\\', __DIR__ . '/../lib');
iobench_require_debian(['Psr/Container', 'Symfony/Component/Messenger', 'Symfony/Component/Serializer', 'Doctrine/DBAL']);

use App\BodySerializer;
use App\CustomerStored;
use App\CustomerStoredHandler;
use App\KeepOnConnectionLoss;
use App\ReportMiddleware;
use App\Services;
use App\StoreCustomer;
use App\StoreCustomerHandler;
use App\Supervisor;
use Doctrine\DBAL\Connection;
use Doctrine\DBAL\DriverManager;
use Symfony\Component\Messenger\Bridge\Amqp\Transport\AmqpTransport;
use Symfony\Component\Messenger\Bridge\Amqp\Transport\Connection as AmqpConnection;
use Symfony\Component\Messenger\Handler\HandlersLocator;
use Symfony\Component\Messenger\MessageBus;
use Symfony\Component\Messenger\Middleware\HandleMessageMiddleware;
use Symfony\Component\Messenger\Middleware\SendMessageMiddleware;
use Symfony\Component\Messenger\Transport\Sender\SendersLocator;
use Symfony\Component\Messenger\Worker;
use Symfony\Component\Serializer\Encoder\JsonEncoder;
use Symfony\Component\Serializer\Normalizer\PropertyNormalizer;
use Symfony\Component\Serializer\Serializer;

const QUEUE = 'messages';
const EVENT_QUEUE = 'messages.events';

$variant = getenv('IOBENCH_VARIANT') ?: 'seed';
$durable = getenv('IOBENCH_BUS_PROFILE') === 'durable';
if (!in_array($variant, ['seed', 'fixed'], true)) {
    fwrite(STDERR, "unknown variant '$variant'; use seed or fixed\n");
    exit(2);
}

/** Messenger's AMQP options for the broker at $url (vhost "/" for an empty path). */
function amqpOptions(string $url): array
{
    $u = parse_url($url);
    $path = ltrim($u['path'] ?? '', '/');

    return [
        'host' => $u['host'] ?? 'localhost',
        'port' => $u['port'] ?? 5672,
        'vhost' => $path === '' ? '/' : urldecode($path),
        'login' => urldecode($u['user'] ?? 'guest'),
        'password' => urldecode($u['pass'] ?? 'guest'),
    ];
}

/**
 * The AMQP connections and their transports, new: the seed's commands ("amqp": fanout exchange
 * "messages", durable queue "messages" bound with key ''), and in the durable profile the events
 * ("events": to their own durable queue through the default exchange, each publish confirmed).
 *
 * @return array{array<string, AmqpTransport>, array<string, AmqpConnection>}
 */
function transports(array $broker, bool $durable): array
{
    $serializer = new BodySerializer(new Serializer([new PropertyNormalizer()], [new JsonEncoder()]));
    $connections = ['amqp' => AmqpConnection::fromDsn('amqp://', $broker + [
        'exchange' => ['name' => QUEUE, 'type' => 'fanout'],
        'queues' => [QUEUE => ['binding_keys' => ['']]],
    ])];
    if ($durable) {
        $connections['events'] = AmqpConnection::fromDsn('amqp://', $broker + [
            'exchange' => ['name' => '', 'default_publish_routing_key' => EVENT_QUEUE],
            'queues' => [EVENT_QUEUE => []],
            'auto_setup' => false,
            'confirm_timeout' => 10,
        ]);
    }

    return [array_map(static fn ($c) => new AmqpTransport($c, $serializer), $connections), $connections];
}

/**
 * A Worker on new transports, connected (so that the first message is not also the first
 * connect), and the database connected: the bus (Send, Report and Handle middleware), the
 * handlers, and the receivers, which the fixed variant keeps from rejecting a message whose
 * handler lost a connection.
 */
function worker(array $broker, bool $durable, Connection $db, bool $fixed): Worker
{
    [$transports, $connections] = transports($broker, $durable);
    // The handler dispatches through the bus it is part of: the middleware list is filled after.
    $middleware = new ArrayObject();
    $bus = new MessageBus($middleware);
    $middleware->exchangeArray([
        new SendMessageMiddleware(new SendersLocator(
            [StoreCustomer::class => ['amqp'], CustomerStored::class => [$durable ? 'events' : 'amqp']],
            new Services($transports),
        )),
        new ReportMiddleware($fixed, $db),
        new HandleMessageMiddleware(new HandlersLocator([
            StoreCustomer::class => [new StoreCustomerHandler($bus, $db, $fixed, $durable ? 2 : 1)],
            CustomerStored::class => [new CustomerStoredHandler()],
        ])),
    ]);
    $transports['amqp']->getMessageCount();
    $db->connect();
    $receivers = $transports;
    if ($fixed) {
        $receivers = array_map(static fn ($t, $c) => new KeepOnConnectionLoss($t, $c), $transports, $connections);
        $receivers = array_combine(array_keys($transports), $receivers);
    }

    return new Worker($receivers, $bus);
}

$broker = amqpOptions(getenv('IOBENCH_AMQP_URL') ?: 'amqp://guest:guest@localhost:5672/');
$db = parse_url(getenv('IOBENCH_DATABASE_URL') ?: '');
if (!in_array($db['scheme'] ?? '', ['postgres', 'postgresql'], true)) {
    fwrite(STDERR, "IOBENCH_DATABASE_URL must be a postgres:// URL\n");
    exit(2);
}
$connection = DriverManager::getConnection([
    'driver' => 'pdo_pgsql',
    'host' => $db['host'] ?? 'localhost',
    'port' => $db['port'] ?? 5432,
    'dbname' => ltrim($db['path'] ?? '', '/'),
    'user' => urldecode($db['user'] ?? ''),
    'password' => urldecode($db['pass'] ?? ''),
    'serverVersion' => '9.6', // as the seed's doctrine.yaml
]);
$fixed = $variant === 'fixed';
$worker = worker($broker, $durable, $connection, $fixed); // a wrong URL fails here, at once
$supervisor = new Supervisor(static function () use ($broker, $durable, $connection): Worker {
    $connection->close(); // DBAL connects again, to a database that may have restarted
    return worker($broker, $durable, $connection, true);
});
pcntl_async_signals(true);
foreach ([SIGTERM, SIGINT] as $signal) {
    pcntl_signal($signal, static fn () => $fixed ? $supervisor->stop() : $worker->stop());
}
fwrite(STDOUT, "ready\n");
if ($fixed) {
    $supervisor->run($worker); // a new Worker after a lost broker or database
} else {
    $worker->run(); // basic.get per message; 1 s of sleep when every queue is empty (5.4's default)
}
