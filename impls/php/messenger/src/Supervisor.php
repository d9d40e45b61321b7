<?php

declare(strict_types=1);

namespace App;

use Symfony\Component\Messenger\Exception\TransportException;
use Symfony\Component\Messenger\Worker;

/**
 * The fixed variant's loop around Messenger's Worker, which ends with the TransportException of a
 * lost broker: it starts a new Worker (new transports, new connections) as a supervisor would
 * restart the process, with back-off (100 ms doubling to 2 s), and gives up (exit 1) after 60 s
 * without a broker.
 */
final class Supervisor
{
    private const FIRST_DELAY = 0.1;
    private const MAX_DELAY = 2.0;
    private const GIVE_UP_AFTER = 60.0;

    private ?Worker $worker = null;
    private bool $stopped = false;

    /** @param \Closure(): Worker $newWorker a Worker on new, connected transports */
    public function __construct(private \Closure $newWorker)
    {
    }

    /** Runs $first, then new Workers after a lost broker, until stop(). */
    public function run(Worker $first): void
    {
        $this->worker = $first;
        $delay = self::FIRST_DELAY;
        $lostSince = null;
        while (!$this->stopped) {
            try {
                $this->worker ??= ($this->newWorker)();
                $delay = self::FIRST_DELAY;
                $lostSince = null;
                if (!$this->stopped) {
                    $this->worker->run();
                }
            } catch (TransportException $e) {
                $this->worker = null;
                gc_collect_cycles(); // the old connections close, so the broker requeues what they held
                $lostSince ??= microtime(true);
                $this->pause($delay, $lostSince, $e);
                $delay = min(2 * $delay, self::MAX_DELAY);
            }
        }
    }

    /** Stops the Worker running (after the message in hand) and the loop. */
    public function stop(): void
    {
        $this->stopped = true;
        $this->worker?->stop();
    }

    private function pause(float $delay, float $lostSince, TransportException $e): void
    {
        if (microtime(true) - $lostSince >= self::GIVE_UP_AFTER) {
            fwrite(\STDERR, sprintf("no broker for %d s: %s\n", self::GIVE_UP_AFTER, $e->getMessage()));
            exit(1);
        }
        fwrite(\STDERR, sprintf("broker lost: %s; a new Worker in %.1f s\n", $e->getMessage(), $delay));
        usleep((int) ($delay * 1e6));
    }
}
