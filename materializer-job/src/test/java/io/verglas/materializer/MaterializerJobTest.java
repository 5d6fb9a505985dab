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
    MaterializerConfig config = MaterializerConfig.fromArgs("--catalog.type=jdbc",
        "--s3.endpoint=http://h", "--s3.access-key=a", "--s3.secret-key=s", "--s3.bucket=b",
        "--parallelism=" + parallelism);
    StreamExecutionEnvironment env = StreamExecutionEnvironment.getExecutionEnvironment();
    MaterializerJob.build(env, config);
    return env.getStreamGraph().getJobGraph();
  }
}
