package io.verglas.cli;

import io.verglas.cli.bench.BenchLauncher;
import io.verglas.cli.cachenode.CacheNodeCommand;
import io.verglas.cli.flink.FlinkClusterCommand;
import io.verglas.cli.flink.JobsCommand;
import io.verglas.cli.flink.StopCommand;
import io.verglas.cli.flink.SubmitCommand;
import io.verglas.cli.local.LocalCommand;
import io.verglas.cli.logging.LogFormat;
import io.verglas.cli.push.PushCommand;
import io.verglas.cli.reference.ConfigReferenceCommand;
import io.verglas.cli.table.TableCommand;
import io.verglas.cli.worker.DeployCommand;
import io.verglas.cli.worker.DeploymentsCommand;
import io.verglas.cli.worker.LogsCommand;
import io.verglas.cli.worker.RunsCommand;
import io.verglas.cli.worker.TriggerCommand;
import io.verglas.cli.worker.UndeployCommand;
import io.verglas.cli.worker.WorkerCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The {@code verglas} command. */
@Command(
    name = "verglas",
    mixinStandardHelpOptions = true,
    versionProvider = VersionProvider.class,
    description = "Verglas: rows over Arrow Flight into maintained Iceberg tables, served by an "
        + "Iceberg-aware S3 cache.",
    subcommands = {LocalCommand.class, CacheNodeCommand.class, TableCommand.class, PushCommand.class, BenchLauncher.class,
        ConfigReferenceCommand.class,
        SubmitCommand.class, JobsCommand.class, StopCommand.class, FlinkClusterCommand.class,
        DeployCommand.class, UndeployCommand.class, DeploymentsCommand.class, RunsCommand.class,
        LogsCommand.class, TriggerCommand.class, WorkerCommand.class,
        CommandLine.HelpCommand.class})
public final class Verglas {
  public static void main(String[] args) {
    try {
      LogFormat.apply(System.getenv()); // before anything logs
    } catch (IllegalArgumentException e) {
      System.err.println("verglas: " + e.getMessage());
      System.exit(2);
    }
    int exit = new CommandLine(new Verglas())
        .setExecutionExceptionHandler(new ErrorReporter())
        .execute(args);
    System.exit(exit);
  }
}
