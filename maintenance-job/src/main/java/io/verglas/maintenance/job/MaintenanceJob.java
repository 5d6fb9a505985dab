package io.verglas.maintenance.job;

import io.verglas.maintenance.source.FeedSource;
import io.verglas.maintenance.source.TableSignal;
import java.util.function.Function;
import org.apache.flink.api.common.eventtime.WatermarkStrategy;
import org.apache.flink.api.common.typeinfo.TypeInformation;
import org.apache.flink.api.common.typeinfo.Types;
import org.apache.flink.configuration.CheckpointingOptions;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.core.execution.CheckpointingMode;
import org.apache.flink.streaming.api.datastream.DataStream;
import org.apache.flink.streaming.api.datastream.SingleOutputStreamOperator;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.apache.flink.streaming.api.functions.sink.v2.DiscardingSink;

/**
 * The maintenance job: change-feed commits and a slow sweep → keyed by table → a trigger that
 * allows one work item per table per rewrite pause → keyed by table → workers (parallelism =
 * tables maintained at once) that compact, expire and remove orphans by each table's policy.
 *
 * <pre>
 *   flink run maintenance-job.jar --catalog.type=jdbc --catalog.uri=... --feed.uri=http://.../events
 * </pre>
 * See {@link MaintenanceConfig} for every argument.
 */
public final class MaintenanceJob {
  public static final String JOB_NAME = "verglas-maintenance";
  public static final String SOURCE_UID = "feed-source";
  public static final String TRIGGER_UID = "table-trigger";
  public static final String WORKER_UID = "maintenance-worker";

  private MaintenanceJob() {}

  public static void main(String[] args) throws Exception {
    MaintenanceConfig config = MaintenanceConfig.fromArgs(args);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    build(env, config);
    env.execute(JOB_NAME);
  }

  public static void build(StreamExecutionEnvironment env, MaintenanceConfig config) {
    build(env, config, items -> items.keyBy(WorkItem::table, Types.STRING)
        .process(new MaintenanceWorker(config), TypeInformation.of(MaintenanceReport.class))
        .uid(WORKER_UID).name("Maintenance worker").setParallelism(config.parallelism()));
  }

  /**
   * The topology with {@code work} applied to the work items: a seam for tests that count
   * items; the job itself runs {@link MaintenanceWorker}.
   */
  public static void build(StreamExecutionEnvironment env, MaintenanceConfig config,
      Function<DataStream<WorkItem>, DataStream<?>> work) {
    env.configure(configuration(config));
    DataStream<TableSignal> signals = env
        .fromSource(new FeedSource(config), WatermarkStrategy.noWatermarks(), "Change feed",
            TypeInformation.of(TableSignal.class))
        .uid(SOURCE_UID).setParallelism(1);
    SingleOutputStreamOperator<WorkItem> items = signals
        .keyBy(TableSignal::table, Types.STRING)
        .process(new TableTrigger(config.rewritePause()), TypeInformation.of(WorkItem.class))
        .uid(TRIGGER_UID).name("Table trigger").setParallelism(config.parallelism());
    work.apply(items).sinkTo(new DiscardingSink<>()).name("Reports");
  }

  static Configuration configuration(MaintenanceConfig config) {
    Configuration conf = new Configuration();
    conf.set(CheckpointingOptions.CHECKPOINTING_INTERVAL, config.checkpointInterval());
    conf.set(CheckpointingOptions.CHECKPOINTING_CONSISTENCY_MODE, CheckpointingMode.EXACTLY_ONCE);
    return conf;
  }
}
