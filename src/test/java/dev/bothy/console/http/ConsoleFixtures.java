package dev.bothy.console.http;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Rows for the console's dead letter and webhook pages, written as the owner with one statement
 * each: the console only reads them through the modules' ports.
 */
final class ConsoleFixtures {
  /** The handler of the fixture's dead letters: no process registers it, so a replay ends. */
  static final String HANDLER = "console.fixture";

  /** The subscription with attempts. */
  static final String SUBSCRIPTION = "0190b5a0-0000-7000-8000-00000000c0de";

  /** The subscription without attempts. */
  static final String QUIET = "0190b5a0-0000-7000-8000-00000000c0df";

  private ConsoleFixtures() {}

  /**
   * Writes open dead letters that died one second apart, the newest with two deaths in its history,
   * and one replayed dead letter.
   */
  static void deadLetters(Connection c, int open) throws SQLException {
    try (Statement s = c.createStatement()) {
      s.execute(
          "INSERT INTO bus_dead_letters (id, handler, durable, event_id, event_seq, event_type,"
              + " error_kind, error_class, error_message, deliveries, dead_at, errors)"
              + " SELECT gen_random_uuid(), '"
              + HANDLER
              + "' || i, 'console_main', gen_random_uuid(), i, 'settings.updated', 'invalid',"
              + " 'java.lang.IllegalArgumentException', 'no such account', 3,"
              + " now() - make_interval(secs => i),"
              + " CASE WHEN i = 1 THEN jsonb_build_array("
              + "jsonb_build_object('at', now() - interval '1 hour', 'deliveries', 10, 'kind',"
              + " 'unavailable', 'error', 'dev.bothy.kernel.BothyException', 'message',"
              + " 'upstream down'),"
              + "jsonb_build_object('at', now() - make_interval(secs => i), 'deliveries', 3,"
              + " 'kind', 'invalid', 'error', 'java.lang.IllegalArgumentException', 'message',"
              + " 'no such account'))"
              + " ELSE jsonb_build_array(jsonb_build_object('at', now() - make_interval(secs =>"
              + " i), 'deliveries', 3, 'kind', 'invalid', 'error',"
              + " 'java.lang.IllegalArgumentException', 'message', 'no such account')) END"
              + " FROM generate_series(1, "
              + open
              + ") i");
      s.execute(
          "INSERT INTO bus_dead_letters (id, handler, durable, event_id, event_seq, event_type,"
              + " error_kind, error_class, error_message, deliveries, dead_at, replayed_at,"
              + " replays, errors) VALUES (gen_random_uuid(), '"
              + HANDLER
              + ".replayed', 'console_main', gen_random_uuid(), 1, 'settings.updated',"
              + " 'invalid', 'java.lang.IllegalArgumentException', 'no such account', 3, now(),"
              + " now(), 1, '[]'::jsonb)");
    }
  }

  /**
   * Writes two subscriptions of https://hooks.example.com and {@code attempts} attempts of the
   * first, one per second, the newest first failing with a 503; pairs share their time so the id
   * breaks ties.
   */
  static void webhooks(Connection c, int attempts) throws SQLException {
    try (Statement s = c.createStatement()) {
      for (String id : new String[] {SUBSCRIPTION, QUIET}) {
        s.execute(
            "INSERT INTO webhook_subscriptions (id, url, event_types, secret, ordered, rate_limit,"
                + " state, created_at, updated_at) VALUES ('"
                + id
                + "', 'https://hooks.example.com/alex', ARRAY['settings.updated'],"
                + " 'whsec_c2VjcmV0LW9mLWFsZXgtYW5kLXNhbQ==', false, 10, 'active', now(), now())");
      }
      s.execute(
          "INSERT INTO webhook_attempts (id, subscription_id, event_seq, event_id, attempt,"
              + " attempted_at, duration_ms, outcome, response_status, response_body, error_kind)"
              + " SELECT gen_random_uuid(), '"
              + SUBSCRIPTION
              + "', i, gen_random_uuid(), 1, now() - make_interval(secs => i / 2), 12,"
              + " CASE WHEN i = 1 THEN 'failed' ELSE 'delivered' END,"
              + " CASE WHEN i = 1 THEN 503 ELSE 204 END,"
              + " CASE WHEN i = 1 THEN 'try later' ELSE NULL END, NULL"
              + " FROM generate_series(1, "
              + attempts
              + ") i");
    }
  }
}
