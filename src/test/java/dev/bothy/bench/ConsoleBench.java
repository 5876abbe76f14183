package dev.bothy.bench;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.zaxxer.hikari.HikariDataSource;
import dev.bothy.api.domain.TokenHash;
import dev.bothy.platform.pg.EmbeddedPostgresServer;
import dev.bothy.testing.PgExtension;
import dev.bothy.wire.BenchApp;
import dev.bothy.wire.config.ConsoleConfig;
import java.io.PrintStream;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

/**
 * The console benchmark ({@code bench/run.sh console}): the jobs page's API with a million jobs.
 * For each filter shape the page offers (none, state, kind, state and kind, a rare state; the first
 * page and a keyset page deep in the filter's rows) it times {@code GET /console/api/jobs} on a
 * running {@code all} role, interleaved request by request with the ceiling: the same three
 * statements the console's store runs (the page, the page's error histories, the capped count),
 * sent over JDBC by the runtime role in one transaction, no HTTP and no unit of work.
 *
 * <p>Prints {@code variant<TAB>p99 seconds} rows (one per run and variant) on stdout; the plans,
 * the per-shape table of medians and the goal (API p99 within 200 ms) on stderr.
 */
public final class ConsoleBench {
  private static final String TOKEN = "console-bench-token-of-robin";
  private static final double GOAL_MILLIS = 200;
  private static final int PAGE = ConsoleConfig.DEFAULT_PAGE_SIZE;
  private static final int CAP = ConsoleConfig.DEFAULT_COUNT_CAP;
  private static final ObjectMapper JSON = new ObjectMapper();

  // Test data in one statement. Ids are UUIDv7 (PostgreSQL 18's uuidv7 with a shift) spread over
  // the last three hours in insertion order, as a working installation's are; a hash of the row
  // number picks the state: 90% completed, 4% available, 2% scheduled, 1% retryable, 0.2%
  // running, 1.5% discarded, 1.3% cancelled; kinds bench.kind0 to bench.kind9 in turn. The queue
  // bench has no workers, so nothing changes the rows while the benchmark runs.
  private static final String FILL =
      "INSERT INTO jobs (id, kind, queue, args, state, attempt, max_attempts, priority,"
          + " scheduled_at, created_at, attempted_at, attempted_by, finalized_at, errors)"
          + " SELECT uuidv7(make_interval(secs => (i - %1$d) * 10800.0 / %1$d)),"
          + " 'bench.kind' || (i %% 10), 'bench', '{}'::jsonb, state,"
          + " CASE WHEN state IN ('available', 'scheduled', 'cancelled') THEN 0"
          + " WHEN state = 'discarded' THEN 3 ELSE 1 END, 3, 2,"
          + " CASE WHEN state IN ('scheduled', 'retryable') THEN now() + interval '1 day'"
          + " ELSE now() END, now(),"
          + " CASE WHEN state IN ('available', 'scheduled', 'cancelled') THEN NULL ELSE now() END,"
          + " CASE WHEN state IN ('available', 'scheduled', 'cancelled') THEN NULL"
          + " ELSE 'bench' END,"
          + " CASE WHEN state IN ('completed', 'discarded', 'cancelled') THEN now() END,"
          + " CASE WHEN state IN ('discarded', 'retryable') THEN jsonb_build_array("
          + "jsonb_build_object('at', now(), 'attempt', 1, 'kind', 'error', 'error',"
          + " 'java.lang.IllegalStateException', 'message', 'bench failure'))"
          + " ELSE '[]'::jsonb END"
          + " FROM (SELECT i, CASE WHEN h < 900 THEN 'completed' WHEN h < 940 THEN 'available'"
          + " WHEN h < 960 THEN 'scheduled' WHEN h < 970 THEN 'retryable'"
          + " WHEN h < 972 THEN 'running' WHEN h < 987 THEN 'discarded' ELSE 'cancelled' END"
          + " AS state FROM (SELECT i, abs(hashint4(i)) %% 1000 AS h"
          + " FROM generate_series(1, %1$d) i) hashed) rows";

  // The console store's three statements (JobAdminStore.page, errorHistories, countUpTo), as jOOQ
  // renders them: the state is an inline literal (so partial indexes can serve it), the kind and
  // the cursor are bind values. Plain SQL here because the ceiling is the statements themselves.
  private static final String PAGE_SQL = "SELECT * FROM jobs WHERE %s ORDER BY id DESC LIMIT ?";
  private static final String ERRORS_SQL =
      "SELECT jobs.id, ((jobs.errors -> e.k) ->> 'at')::timestamptz,"
          + " ((jobs.errors -> e.k) ->> 'attempt')::int, (jobs.errors -> e.k) ->> 'kind',"
          + " (jobs.errors -> e.k) ->> 'error', (jobs.errors -> e.k) ->> 'message'"
          + " FROM jobs CROSS JOIN LATERAL generate_series(0, jsonb_array_length(jobs.errors) - 1)"
          + " AS e (k) WHERE jobs.id = ANY (?) ORDER BY jobs.id, e.k";
  private static final String COUNT_SQL =
      "SELECT count(*) FROM (SELECT 1 AS one FROM jobs WHERE %s LIMIT ?) AS bounded";

  /** A filter the jobs page offers, on its first page or deep in its rows. */
  private record Shape(String name, String state, String kind, boolean deep) {
    String where(boolean withCursor) {
      List<String> parts = new ArrayList<>();
      if (state != null) {
        parts.add("state = '" + state + "'");
      }
      if (kind != null) {
        parts.add("kind = ?");
      }
      if (withCursor) {
        parts.add("id < ?");
      }
      return parts.isEmpty() ? "TRUE" : String.join(" AND ", parts);
    }
  }

  private static final List<Shape> SHAPES =
      List.of(
          new Shape("all-first", null, null, false),
          new Shape("all-deep", null, null, true),
          new Shape("state-first", "discarded", null, false),
          new Shape("state-deep", "discarded", null, true),
          new Shape("kind-first", null, "bench.kind3", false),
          new Shape("kind-deep", null, "bench.kind3", true),
          new Shape("state-kind-first", "discarded", "bench.kind3", false),
          new Shape("state-kind-deep", "discarded", "bench.kind3", true),
          new Shape("rare-state-first", "running", null, false),
          new Shape("rare-state-deep", "running", null, true));

  private ConsoleBench() {}

  /**
   * Runs the benchmark and exits: 0 when it ran through, 1 on any failure (a request answered with
   * other than 200, the API and the ceiling disagreeing on a page or a count).
   *
   * @param args samples per variant; requests per shape and run; jobs in the table
   */
  public static void main(String[] args) {
    int status = 0;
    try {
      run(args);
    } catch (Throwable t) {
      System.err.println("console: failed: " + t);
      t.printStackTrace();
      status = 1;
    }
    System.err.flush();
    System.exit(status);
  }

  private static void run(String[] args) throws Exception {
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 3;
    int requests = args.length > 1 ? Integer.parseInt(args[1]) : 400;
    int jobs = args.length > 2 ? Integer.parseInt(args[2]) : 1_000_000;
    if (runs < 1 || requests < 100 || jobs < 10_000) {
      throw new IllegalArgumentException("usage: ConsoleBench runs requests(>=100) jobs(>=10000)");
    }
    Path dir = Files.createTempDirectory("bothy-bench-console");
    Map<String, List<Double>> p99 = new LinkedHashMap<>();
    Map<String, List<Double>> p50 = new LinkedHashMap<>();
    try (EmbeddedPostgresServer server =
        EmbeddedPostgresServer.start(
            dir.resolve("data"),
            0,
            Duration.ofSeconds(60),
            Duration.ZERO,
            EmbeddedPostgresServer.Durability.THROWAWAY)) {
      BenchSupport.migrate(server);
      PgExtension.recordInstance(server.superuserDataSource());
      fill(server, jobs);
      Map<Shape, UUID> cursors = cursors(server);
      explain(server, cursors);
      BenchApp app = start(dir, server);
      try (HikariDataSource pool = BenchSupport.pool(server, 1)) {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        for (Shape shape : SHAPES) {
          agree(shape, cursors.get(shape), http, app.adminPort(), pool);
        }
        for (int run = 0; run <= runs; run++) {
          System.err.println(
              run == 0 ? "console: warm-up, not recorded" : "console: run " + run + " of " + runs);
          int n = run == 0 ? requests / 4 : requests;
          for (Shape shape : SHAPES) {
            long[][] times = measure(shape, cursors.get(shape), n, http, app.adminPort(), pool);
            if (run > 0) {
              record(p99, p50, "ceiling-" + shape.name(), times[0]);
              record(p99, p50, "api-" + shape.name(), times[1]);
            }
          }
        }
      } finally {
        // Stopping the application resets Dropwizard's logging to standard output.
        System.setOut(System.err);
        app.close();
      }
    } finally {
      BenchSupport.deleteTree(dir);
    }
    report(p99, p50, requests, jobs);
  }

  private static void fill(EmbeddedPostgresServer server, int jobs) throws Exception {
    long start = System.nanoTime();
    try (Connection c = server.superuserDataSource().getConnection();
        Statement s = c.createStatement()) {
      s.execute(String.format(FILL, jobs));
      // The visibility map lets a capped count read the index alone, as on a vacuumed table.
      s.execute("VACUUM (ANALYZE) jobs");
      try (ResultSet r =
          s.executeQuery("SELECT state, count(*) FROM jobs GROUP BY state ORDER BY state")) {
        StringBuilder states = new StringBuilder();
        while (r.next()) {
          states.append(' ').append(r.getString(1)).append('=').append(r.getLong(2));
        }
        System.err.printf(
            "console: %d jobs written and vacuumed in %.1f s:%s%n",
            jobs, (System.nanoTime() - start) / 1e9, states);
      }
    }
  }

  /** The cursor of each deep shape: the id nine tenths into the filter's rows, newest first. */
  private static Map<Shape, UUID> cursors(EmbeddedPostgresServer server) throws Exception {
    Map<Shape, UUID> cursors = new LinkedHashMap<>();
    try (Connection c = server.superuserDataSource().getConnection()) {
      for (Shape shape : SHAPES) {
        if (!shape.deep()) {
          continue;
        }
        long rows;
        try (PreparedStatement s =
            c.prepareStatement("SELECT count(*) FROM jobs WHERE " + shape.where(false))) {
          bind(s, shape, null);
          try (ResultSet r = s.executeQuery()) {
            r.next();
            rows = r.getLong(1);
          }
        }
        try (PreparedStatement s =
            c.prepareStatement(
                "SELECT id FROM jobs WHERE "
                    + shape.where(false)
                    + " ORDER BY id DESC OFFSET "
                    + (rows * 9 / 10)
                    + " LIMIT 1")) {
          bind(s, shape, null);
          try (ResultSet r = s.executeQuery()) {
            r.next();
            cursors.put(shape, r.getObject(1, UUID.class));
          }
        }
        System.err.printf(
            "console: %s starts below row %d of %d%n", shape.name(), rows * 9 / 10, rows);
      }
    }
    return cursors;
  }

  private static void explain(EmbeddedPostgresServer server, Map<Shape, UUID> cursors)
      throws Exception {
    try (Connection c = server.superuserDataSource().getConnection()) {
      for (Shape shape : SHAPES) {
        UUID cursor = cursors.get(shape);
        for (String sql :
            List.of(
                String.format(PAGE_SQL, shape.where(cursor != null)),
                String.format(COUNT_SQL, shape.where(false)))) {
          boolean page = sql.startsWith("SELECT *");
          try (PreparedStatement s =
              c.prepareStatement("EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) " + sql)) {
            int next = bind(s, shape, page ? cursor : null);
            s.setInt(next, page ? PAGE + 1 : CAP + 1);
            System.err.println("console: plan of " + shape.name() + ": " + sql);
            try (ResultSet r = s.executeQuery()) {
              while (r.next()) {
                System.err.println("    " + r.getString(1));
              }
            }
          }
        }
      }
    }
  }

  /** Binds the kind and the cursor in the order of {@link Shape#where}; returns the next index. */
  private static int bind(PreparedStatement s, Shape shape, UUID cursor) throws Exception {
    int i = 1;
    if (shape.kind() != null) {
      s.setString(i++, shape.kind());
    }
    if (cursor != null) {
      s.setObject(i++, cursor);
    }
    return i;
  }

  /** The console's page: the three statements in one transaction; returns the ids and count. */
  private static Object[] ceiling(HikariDataSource pool, Shape shape, UUID cursor)
      throws Exception {
    List<UUID> ids = new ArrayList<>();
    long count;
    try (Connection c = pool.getConnection()) {
      c.setAutoCommit(false);
      try (PreparedStatement s =
          c.prepareStatement(String.format(PAGE_SQL, shape.where(cursor != null)))) {
        s.setInt(bind(s, shape, cursor), PAGE + 1);
        try (ResultSet r = s.executeQuery()) {
          while (r.next()) {
            ids.add(r.getObject("id", UUID.class));
          }
        }
      }
      if (!ids.isEmpty()) {
        try (PreparedStatement s = c.prepareStatement(ERRORS_SQL)) {
          Array array = c.createArrayOf("uuid", ids.toArray());
          s.setArray(1, array);
          try (ResultSet r = s.executeQuery()) {
            while (r.next()) {
              r.getString(6);
            }
          }
        }
      }
      try (PreparedStatement s = c.prepareStatement(String.format(COUNT_SQL, shape.where(false)))) {
        s.setInt(bind(s, shape, null), CAP + 1);
        try (ResultSet r = s.executeQuery()) {
          r.next();
          count = r.getLong(1);
        }
      }
      c.commit();
    }
    return new Object[] {ids.subList(0, Math.min(PAGE, ids.size())), count};
  }

  private static HttpResponse<String> api(HttpClient http, int port, Shape shape, UUID cursor)
      throws Exception {
    StringBuilder query = new StringBuilder();
    if (shape.state() != null) {
      query.append("&state=").append(shape.state());
    }
    if (shape.kind() != null) {
      query.append("&kind=").append(URLEncoder.encode(shape.kind(), StandardCharsets.UTF_8));
    }
    if (cursor != null) {
      query.append("&before=").append(cursor);
    }
    HttpRequest request =
        HttpRequest.newBuilder(
                URI.create("http://127.0.0.1:" + port + "/console/api/jobs?limit=" + PAGE + query))
            .header("Authorization", "Bearer " + TOKEN)
            .timeout(Duration.ofSeconds(30))
            .GET()
            .build();
    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
    if (response.statusCode() != 200) {
      throw new IllegalStateException(
          shape.name() + " answered " + response.statusCode() + ": " + response.body());
    }
    return response;
  }

  /** Checks that the API and the ceiling return the same page and count for the shape. */
  private static void agree(
      Shape shape, UUID cursor, HttpClient http, int port, HikariDataSource pool) throws Exception {
    JsonNode page = JSON.readTree(api(http, port, shape, cursor).body());
    List<UUID> apiIds = new ArrayList<>();
    page.get("jobs").forEach(j -> apiIds.add(UUID.fromString(j.get("id").asText())));
    Object[] direct = ceiling(pool, shape, cursor);
    long directCount = Math.min((Long) direct[1], CAP);
    if (!apiIds.equals(direct[0]) || page.at("/count/value").asLong() != directCount) {
      throw new IllegalStateException(
          shape.name() + ": the API and the ceiling disagree on the page or the count");
    }
    System.err.printf(
        "console: %s agrees: %d jobs, count %d%s%n",
        shape.name(),
        apiIds.size(),
        directCount,
        page.at("/count/capped").asBoolean() ? " (capped)" : "");
  }

  /** Times n requests of each side, interleaved; returns the nanoseconds, ceiling then API. */
  private static long[][] measure(
      Shape shape, UUID cursor, int n, HttpClient http, int port, HikariDataSource pool)
      throws Exception {
    long[] ceiling = new long[n];
    long[] api = new long[n];
    for (int i = 0; i < n; i++) {
      long t0 = System.nanoTime();
      ceiling(pool, shape, cursor);
      long t1 = System.nanoTime();
      api(http, port, shape, cursor);
      long t2 = System.nanoTime();
      ceiling[i] = t1 - t0;
      api[i] = t2 - t1;
    }
    return new long[][] {ceiling, api};
  }

  private static void record(
      Map<String, List<Double>> p99, Map<String, List<Double>> p50, String variant, long[] nanos) {
    long[] sorted = nanos.clone();
    java.util.Arrays.sort(sorted);
    double high = sorted[(int) Math.floor(0.99 * (sorted.length - 1))] / 1e9;
    double mid = sorted[(int) Math.floor(0.50 * (sorted.length - 1))] / 1e9;
    BenchSupport.record(p99, variant, high);
    p50.computeIfAbsent(variant, v -> new ArrayList<>()).add(mid);
  }

  private static void report(
      Map<String, List<Double>> p99, Map<String, List<Double>> p50, int requests, int jobs) {
    System.err.println();
    System.err.printf(
        "Jobs page API with %,d jobs, %d requests per shape and run, medians of the runs (ms):%n%n",
        jobs, requests);
    System.err.println(
        "| shape | ceiling p50 | ceiling p99 | API p50 | API p99 | API p99 / ceiling p99 | goal |");
    System.err.println("|---|---|---|---|---|---|---|");
    for (Shape shape : SHAPES) {
      double cp50 = BenchSupport.median(p50.get("ceiling-" + shape.name())) * 1e3;
      double cp99 = BenchSupport.median(p99.get("ceiling-" + shape.name())) * 1e3;
      double ap50 = BenchSupport.median(p50.get("api-" + shape.name())) * 1e3;
      double ap99 = BenchSupport.median(p99.get("api-" + shape.name())) * 1e3;
      System.err.printf(
          "| %s | %.1f | %.1f | %.1f | %.1f | %.2f | p99 within %.0f ms: %s |%n",
          shape.name(),
          cp50,
          cp99,
          ap50,
          ap99,
          ap99 / cp99,
          GOAL_MILLIS,
          ap99 <= GOAL_MILLIS ? "met" : "NOT met");
    }
  }

  private static BenchApp start(Path dir, EmbeddedPostgresServer server) throws Exception {
    Path config = dir.resolve("console-bench.yml");
    String yaml =
        "server:\n"
            + "  applicationConnectors:\n    - type: http\n      port: 0\n"
            + "  adminConnectors:\n    - type: http\n      port: 0\n"
            + "  requestLog:\n    appenders: []\n"
            + "logging:\n  level: WARN\n  appenders:\n    - type: console\n      target: stderr\n"
            + "api:\n  tokens:\n    - name: robin\n      sha256: "
            + TokenHash.sha256Hex(TOKEN)
            + "\n      scopes: [admin:read]\n";
    Files.writeString(config, yaml, StandardCharsets.UTF_8);
    PrintStream rows = System.out;
    // Dropwizard's bootstrap logging writes to standard output until the configuration applies.
    System.setOut(System.err);
    try {
      System.err.println("console: starting the all role");
      return BenchApp.start(config, BenchSupport.url(server));
    } finally {
      System.setOut(rows);
    }
  }
}
