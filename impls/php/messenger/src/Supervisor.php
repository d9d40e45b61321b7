<?php

declare(strict_types=1);

namespace App;

use Iobench\Backoff;
use Symfony\Component\Messenger\Worker;

/**
 * The fixed variant's loop around Messenger's Worker, which ends when the broker or the database
 * is lost (Lost): it starts a new Worker (new transports, a new database connection) as a
 * supervisor would restart the process, after the back-off of the PHP consumers
 * (Iobench\Backoff: 100 ms doubling to 2 s, an exit after 60 s without a Worker that ran for a
 * second). Anything else ends the loop.
 */
final class Supervisor
{
    private ?Worker $worker = null;
    private bool $stopped = false;

    /** @param \Closure(): Worker $newWorker a Worker on new, connected transports */
    public function __construct(private \Closure $newWorker)
    {
    }

    /** Runs $first, then new Workers after a lost connection, until stop(). */
    public function run(Worker $first): void
    {
        $this->worker = $first;
        $backoff = new Backoff('broker or database');
        while (!$this->stopped) {
            $started = microtime(true);
            try {
                $this->worker ??= ($this->newWorker)();
                if (!$this->stopped) {
                    $this->worker->run();
                }
            } catch (\Throwable $e) {
                if (Lost::connection($e) === null) {
                    throw $e;
                }
                $this->worker = null;
                gc_collect_cycles(); // the old connections close, so the broker requeues what they held
                fwrite(\STDERR, sprintf("connection lost: %s; starting a new Worker\n", $e->getMessage()));
                $backoff->ended($started);
                $backoff->wait($e);
            }
        }
    }

    /** Stops the Worker running (after the message in hand) and the loop. */
    public function stop(): void
    {
        $this->stopped = true;
        $this->worker?->stop();
    }
}
