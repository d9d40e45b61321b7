<?php

declare(strict_types=1);

namespace App;

/**
 * Consumer is the loop the seed's two consumers share: take one message at a time (or time out
 * after a second), count it, and report when the queue runs dry. SIGTERM and SIGINT end it after
 * the current wait, with the total.
 *
 * It also reports its progress for iobench (docs/IMPLS.md, "Queue consumers"): "received N T",
 * the count so far and the time its last message came (Unix seconds), at most every 10 ms while
 * messages come and once more when the queue runs dry. That is output only: the queue is read
 * with the seed's calls and options.
 */
final class Consumer
{
    private const EINTR = 4;

    /** How often at most a progress line is written while messages come, in seconds. */
    private const PROGRESS = 0.01;

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
        $last = 0.0; // when the last message came
        $due = 0.0;  // when the next progress line may be written
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
                $last = microtime(true);
                if ($last >= $due) {
                    self::progress($total, $last);
                    $due = $last + self::PROGRESS;
                }
            } elseif ($counter > 0) {
                self::progress($total, $last);
                echo "Processed {$counter} entries\n";
                $counter = 0;
                $due = 0.0;
            }
        }
        if ($counter > 0) {
            echo "Processed {$counter} entries\n";
        }
        echo "total {$total}\n";
    }

    private static function progress(int $total, float $last): void
    {
        printf("received %d %.6F\n", $total, $last);
    }
}
