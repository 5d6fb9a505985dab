package io.verglas.cli.local;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import org.apache.flink.api.java.tuple.Tuple2;
import org.apache.flink.configuration.Configuration;
import org.apache.flink.runtime.blob.TransientBlobService;
import org.apache.flink.runtime.dispatcher.DispatcherGateway;
import org.apache.flink.runtime.dispatcher.DispatcherRestEndpoint;
import org.apache.flink.runtime.leaderelection.LeaderElection;
import org.apache.flink.runtime.resourcemanager.ResourceManagerGateway;
import org.apache.flink.runtime.rest.RestEndpointFactory;
import org.apache.flink.runtime.rest.handler.RestHandlerConfiguration;
import org.apache.flink.runtime.rest.handler.RestHandlerSpecification;
import org.apache.flink.runtime.rest.handler.legacy.ExecutionGraphCache;
import org.apache.flink.runtime.rest.handler.legacy.metrics.MetricFetcher;
import org.apache.flink.runtime.rpc.FatalErrorHandler;
import org.apache.flink.runtime.webmonitor.WebMonitorEndpoint;
import org.apache.flink.runtime.webmonitor.retriever.GatewayRetriever;
import org.apache.flink.runtime.webmonitor.retriever.LeaderGatewayRetriever;
import org.apache.flink.shaded.netty4.io.netty.channel.ChannelInboundHandler;
import org.apache.flink.util.ConfigurationException;

/**
 * The REST endpoint of the stack's MiniClusters: Flink's own ({@code SessionRestEndpointFactory}
 * builds the same class) with none of its handlers, so every request gets a 404.
 *
 * <p>Why. A MiniCluster always starts its REST endpoint, and Flink's REST API has no
 * authentication: whoever reaches the port can submit a job (code of their choosing, run as the
 * stack's user), cancel the materializer, trigger savepoints into any path and read the
 * configuration. The stack itself never calls it (job clients talk to the MiniCluster
 * directly), so it keeps the endpoint (the cluster's lifecycle expects one) and removes what it
 * serves; binding it to loopback alone would still leave it to every local user of the host.
 */
enum EmptyRestEndpointFactory implements RestEndpointFactory<DispatcherGateway> {
  INSTANCE;

  @Override
  public WebMonitorEndpoint<DispatcherGateway> createRestEndpoint(Configuration configuration,
      LeaderGatewayRetriever<DispatcherGateway> dispatchers,
      LeaderGatewayRetriever<ResourceManagerGateway> resourceManagers,
      TransientBlobService blobs, ScheduledExecutorService executor, MetricFetcher metrics,
      LeaderElection leaderElection, FatalErrorHandler fatalErrorHandler) throws Exception {
    RestHandlerConfiguration rest = RestHandlerConfiguration.fromConfiguration(configuration);
    return new Endpoint(dispatchers, configuration, rest, resourceManagers, blobs, executor,
        metrics, leaderElection, RestEndpointFactory.createExecutionGraphCache(rest),
        fatalErrorHandler);
  }

  /** Flink's endpoint without handlers (it logs as Flink's does: see the launcher's logback.xml). */
  static final class Endpoint extends DispatcherRestEndpoint {
    Endpoint(GatewayRetriever<DispatcherGateway> dispatchers, Configuration configuration,
        RestHandlerConfiguration rest, GatewayRetriever<ResourceManagerGateway> resourceManagers,
        TransientBlobService blobs, ScheduledExecutorService executor, MetricFetcher metrics,
        LeaderElection leaderElection, ExecutionGraphCache executionGraphs,
        FatalErrorHandler fatalErrorHandler) throws IOException, ConfigurationException {
      super(dispatchers, configuration, rest, resourceManagers, blobs, executor, metrics,
          leaderElection, executionGraphs, fatalErrorHandler);
    }

    @Override
    protected List<Tuple2<RestHandlerSpecification, ChannelInboundHandler>> initializeHandlers(
        CompletableFuture<String> localAddressFuture) {
      return new ArrayList<>();
    }
  }
}
