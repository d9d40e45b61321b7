<?php

declare(strict_types=1);

namespace App\Queue;

use App\Settings;

/**
 * Zmq pushes with ext-zmq: a persistent PUSH socket ("spdtst/queue/ipc") that connects to
 * IOBENCH_ZMQ_ENDPOINT when the worker first makes it. With no PULL peer bound, messages wait in
 * the socket up to its high-water mark, and then send blocks: the seed's cliff.
 */
final class Zmq implements Pusher
{
    private function __construct(private \ZMQSocket $socket)
    {
    }

    public static function create(): self
    {
        $endpoint = Settings::zmqEndpoint();
        $socket = new \ZMQSocket(
            new \ZMQContext(1),
            \ZMQ::SOCKET_PUSH,
            'spdtst/queue/ipc',
            static function (\ZMQSocket $new) use ($endpoint): void {
                $new->connect($endpoint);
            }
        );
        return new self($socket);
    }

    public function push(string $message): void
    {
        $this->socket->send($message);
    }
}
