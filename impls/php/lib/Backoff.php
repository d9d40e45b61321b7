<?php

declare(strict_types=1);

namespace Iobench;

/**
 * The reconnect back-off of the PHP bus consumers (docs/IMPLS.md, Faults): waits doubling from
 * 100 ms to 2 s, and an exit (status 1, one line on stderr) once it has waited for 60 s. A session
 * that lasted a second worked (supervisord's startsecs), and the back-off starts over.
 */
final class Backoff
{
    private const FIRST_DELAY = 0.1;
    private const MAX_DELAY = 2.0;
    private const GIVE_UP_AFTER = 60.0;
    private const WORKED_AFTER = 1.0;

    private float $delay = self::FIRST_DELAY;
    private ?float $since = null;

    /** @param string $what what is reconnected to, for the line at the exit */
    public function __construct(private string $what = 'broker')
    {
    }

    /** Says that a session begun at $startedAt (microtime(true)) has ended. */
    public function ended(float $startedAt): void
    {
        if (microtime(true) - $startedAt >= self::WORKED_AFTER) {
            $this->delay = self::FIRST_DELAY;
            $this->since = null;
        }
    }

    /** Waits before the next attempt, or exits when what it reconnects to has been away too long. */
    public function wait(\Throwable $cause): void
    {
        $now = microtime(true);
        $this->since ??= $now;
        if ($now - $this->since >= self::GIVE_UP_AFTER) {
            fwrite(\STDERR, sprintf("no %s for %d s: %s\n", $this->what, self::GIVE_UP_AFTER, $cause->getMessage()));
            exit(1);
        }
        usleep((int) ($this->delay * 1e6));
        $this->delay = min(2 * $this->delay, self::MAX_DELAY);
    }
}
