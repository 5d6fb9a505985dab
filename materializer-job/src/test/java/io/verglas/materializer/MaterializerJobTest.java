package io.verglas.materializer;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.StreamSupport;
import org.apache.flink.runtime.jobgraph.JobGraph;
import org.apache.flink.runtime.jobgraph.JobVertex;
import org.apache.flink.streaming.api.environment.StreamExecutionEnvironment;
import org.junit.jupiter.api.Test;

class MaterializerJobTest {
  @Test
  void aSingleWriterIsChainedToTheSource() {
    assertThat(taskNames(1)).containsExactly(
        "Source: WAL source -> Delta writer", "Delta committer -> Sink: Writer");
  }

  @Test
  void severalWritersReceiveTheRowsThroughAKeyedShuffle() {
    JobGraph graph = jobGraph(2);
    assertThat(taskNames(graph)).containsExactly(
        "Source: WAL source", "Delta writer", "Delta committer -> Sink: Writer");
    JobVertex writer = vertices(graph).get(1);
    assertThat(writer.getInputs()).singleElement()
        .satisfies(edge -> assertThat(edge.getShipStrategyName()).isEqualTo("HASH"));
  }

  /**
   * The committer is keyed by table at its own parallelism, and its max parallelism is the
   * job's (not pinned to 1 as the single committer's was), so it can be rescaled.
   */
  @Test
  void theCommitterIsKeyedByTableAtItsOwnParallelism() {
    JobGraph graph = jobGraph("--parallelism=2", "--committer.parallelism=3");
    JobVertex committer = vertices(graph).get(2);
    assertThat(committer.getName()).isEqualTo("Delta committer -> Sink: Writer");
    assertThat(committer.getParallelism()).isEqualTo(3);
    assertThat(committer.getMaxParallelism()).isEqualTo(JobVertex.MAX_PARALLELISM_DEFAULT);
    assertThat(committer.getInputs()).singleElement()
        .satisfies(edge -> assertThat(edge.getShipStrategyName()).isEqualTo("HASH"));
    assertThat(vertices(jobGraph("--parallelism=1")).get(1).getParallelism())
        .as("default committer parallelism").isEqualTo(1);
  }

  private static List<String> taskNames(int parallelism) {
    return taskNames(jobGraph(parallelism));
  }

  private static List<String> taskNames(JobGraph graph) {
    return vertices(graph).stream().map(JobVertex::getName).toList();
  }

  private static List<JobVertex> vertices(JobGraph graph) {
    return StreamSupport.stream(graph.getVerticesSortedTopologicallyFromSources().spliterator(),
        false).toList();
  }

  private static JobGraph jobGraph(int parallelism) {
    return jobGraph("--parallelism=" + parallelism);
  }

  private static JobGraph jobGraph(String... args) {
    List<String> all = new java.util.ArrayList<>(List.of("--catalog.type=jdbc",
        "--s3.endpoint=http://h", "--s3.access-key=a", "--s3.secret-key=s", "--s3.bucket=b"));
    all.addAll(List.of(args));
    MaterializerConfig config = MaterializerConfig.fromArgs(all.toArray(String[]::new));
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    MaterializerJob.build(env, config);
    return env.getStreamGraph().getJobGraph();
  }
}
