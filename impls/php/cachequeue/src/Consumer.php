<?php

declare(strict_types=1);

namespace App;

/**
 * Consumer is the loop the seed's two consumers share: take one message at a time (or time out
 * after a second), count it, and report when the queue runs dry. SIGTERM and SIGINT end it after
 * the current wait, with the total.
 */
final class Consumer
{
    private const EINTR = 4;

    private bool $stopping = false;

    public function __construct()
    {
        if (function_exists('pcntl_async_signals')) {
            pcntl_async_signals(true);
            foreach ([SIGTERM, SIGINT] as $signal) {
                pcntl_signal($signal, function (): void {
                    $this->stopping = true;
                });
            }
        }
    }

    /** @param callable(): bool $take waits for one message; false when none came within its timeout */
    public function run(callable $take): void
    {
        echo "ready\n";
        $counter = 0;
        $total = 0;
        while (!$this->stopping) {
            try {
                $got = $take();
            } catch (\Exception $e) {
                // A wait interrupted by the stop signal: ext-zmq throws EINTR, and PHP's handler
                // of a signal that arrives inside ext-zmq never runs.
                if ($this->stopping || $e->getCode() === self::EINTR) {
                    break;
                }
                throw $e;
            }
            if ($got) {
                $counter++;
                $total++;
            } elseif ($counter > 0) {
                echo "Processed {$counter} entries\n";
                $counter = 0;
            }
        }
        if ($counter > 0) {
            echo "Processed {$counter} entries\n";
        }
        echo "total {$total}\n";
    }
}
