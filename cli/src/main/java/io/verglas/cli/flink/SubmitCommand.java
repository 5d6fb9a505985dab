package io.verglas.cli.flink;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code verglas submit JOB [--cluster URL] [--from-savepoint PATH] [--parallelism N] -- ARGS}. */
@Command(name = "submit", mixinStandardHelpOptions = true,
    description = "Submit a job to a Flink session cluster over its REST API: upload the job's "
        + "jar, run it, print the job id. JOB is materializer, maintenance or a job jar's path; "
        + "ARGS (after --) are the job's own, e.g. --catalog.uri=... (docs/operations.md).")
public final class SubmitCommand implements Callable<Integer> {
  @Parameters(index = "0", paramLabel = "JOB", description = "materializer, maintenance or a jar")
  String job;

  @Parameters(index = "1..*", paramLabel = "ARGS", description = "The job's arguments (after --)")
  List<String> args = new ArrayList<>();

  @Mixin
  ClusterOption cluster;

  @Option(names = "--from-savepoint", paramLabel = "PATH",
      description = "Restore from this savepoint or retained checkpoint")
  String savepoint;

  @Option(names = "--parallelism", paramLabel = "N", description = "The job's default parallelism")
  Integer parallelism;

  @Override
  public Integer call() {
    JobJar jar = JobJar.resolve(job);
    String jobId = new JobSubmitter(cluster.client(), System.out)
        .submit(jar, new JobRun(jar.entryClass(), args, parallelism, savepoint));
    System.out.println(jobId);
    return 0;
  }
}
