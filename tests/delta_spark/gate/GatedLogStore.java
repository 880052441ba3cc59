package acidsql.testing;

import java.io.IOException;
import java.util.Iterator;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.Path;

import org.apache.spark.sql.SparkSession;

import io.delta.storage.HDFSLogStore;

/**
 * Delta's default log store for local paths (HDFSLogStore), with one addition the conflict
 * differential tests need: a table's next commit can be held just before its log file is
 * written. The held transaction has done everything else (read its snapshot, recorded what
 * it read, written its data files, prepared its actions), so when other commits land in the
 * meantime and it is released, Delta's own retry loop runs its own conflict checker against
 * them: the interleaving of ../shared/SCENARIOS.md, with Delta's real commands.
 *
 * With no hold in place it behaves exactly as HDFSLogStore.
 */
public class GatedLogStore extends HDFSLogStore {
    private static final class Gate {
        final AtomicBoolean claimed = new AtomicBoolean(false);
        final CountDownLatch arrived = new CountDownLatch(1);
        final CountDownLatch released = new CountDownLatch(1);
    }

    private static final ConcurrentHashMap<String, Gate> GATES = new ConcurrentHashMap<>();

    // The held statement runs on a JVM thread of its own, not on a Py4J connection's: while it
    // is held, the Python side must be free to send the winners on its one connection.
    private static final ExecutorService RUNNER = Executors.newCachedThreadPool(r -> {
        Thread t = new Thread(r, "acidsql-held-statement");
        t.setDaemon(true);
        return t;
    });

    /** Run a SQL statement (a command: it executes when parsed) on a thread of its own. */
    public static Future<String> runSqlAsync(SparkSession session, String sql) {
        return RUNNER.submit(() -> {
            session.sql(sql).collect();
            return "committed";
        });
    }

    public GatedLogStore(Configuration hadoopConf) {
        super(hadoopConf);
    }

    private static String key(Path logDir) {
        return logDir.toUri().getPath().replaceAll("/+$", "");
    }

    /** Hold the next commit to the table at tablePath (its first attempt only). */
    public static void hold(String tablePath) {
        GATES.put(key(new Path(tablePath, "_delta_log")), new Gate());
    }

    /** Wait until the held commit has arrived at the log; false on time-out. */
    public static boolean awaitArrival(String tablePath, long millis) throws InterruptedException {
        Gate gate = GATES.get(key(new Path(tablePath, "_delta_log")));
        return gate != null && gate.arrived.await(millis, TimeUnit.MILLISECONDS);
    }

    /** Let the held commit go on (and drop the hold if no commit arrived). */
    public static void release(String tablePath) {
        Gate gate = GATES.remove(key(new Path(tablePath, "_delta_log")));
        if (gate != null) {
            gate.released.countDown();
        }
    }

    @Override
    public void write(Path path, Iterator<String> actions, Boolean overwrite, Configuration hadoopConf)
            throws IOException {
        if (!overwrite && path.getName().matches("\\d{20}\\.json")) {
            Gate gate = GATES.get(key(path.getParent()));
            if (gate != null && gate.claimed.compareAndSet(false, true)) {
                gate.arrived.countDown();
                try {
                    if (!gate.released.await(600, TimeUnit.SECONDS)) {
                        throw new IOException("held commit " + path + " was never released");
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted while held before writing " + path, e);
                }
            }
        }
        super.write(path, actions, overwrite, hadoopConf);
    }
}
