<?php

declare(strict_types=1);

namespace App;

use Doctrine\DBAL\Connection;
use Doctrine\DBAL\Driver\Exception as DriverError;
use Doctrine\DBAL\Exception as DbalError;
use Doctrine\DBAL\Exception\ConnectionException;
use Symfony\Component\Messenger\Exception\HandlerFailedException;
use Symfony\Component\Messenger\Exception\TransportException;

/**
 * Lost tells a lost connection from a failure of the command: the broker's (a TransportException),
 * or the database's: DBAL's ConnectionException (it failed to connect), or any other database
 * error after which the connection no longer answers a SELECT 1. pdo_pgsql reports a connection
 * PostgreSQL closed ("terminating connection due to administrator command", then "no connection
 * to the server") as SQLSTATE HY000, a general error, so the question is put to the connection.
 */
final class Lost
{
    /**
     * The lost connection $throwable is, or a handler failed with; null for anything else. $db,
     * when given, is asked whether it still answers after a database error.
     */
    public static function connection(\Throwable $throwable, ?Connection $db = null): ?\Throwable
    {
        $causes = $throwable instanceof HandlerFailedException ? $throwable->getNestedExceptions() : [$throwable];
        foreach ($causes as $cause) {
            if ($cause instanceof TransportException || $cause instanceof ConnectionException) {
                return $cause;
            }
            if ($db !== null && ($cause instanceof DbalError || $cause instanceof DriverError) && !self::answers($db)) {
                return $cause;
            }
        }

        return null;
    }

    private static function answers(Connection $db): bool
    {
        try {
            $db->executeQuery('SELECT 1');

            return true;
        } catch (\Throwable) {
            return false;
        }
    }
}
