using System.Diagnostics;
using System.Text;
using Azure.Core;
using Azure.Security.KeyVault.Secrets;
using FunctionApp.Tests.TestKit;
using Microsoft.Extensions.Logging.Abstractions;
using Microsoft.Extensions.Options;
using OpenTelemetry.Metrics;
using OpenTelemetry.Trace;
using WidgetSigning.Keys;
using WidgetSigning.Telemetry;
using WidgetSigning.Primitives;

namespace WidgetSigning.Tests.Telemetry;

/// <summary>Each instrument of the <c>WidgetSigning</c> meter moves as docs/operations.md says, read through the in-memory exporter.</summary>
public sealed class SigningMetricsTests
{
    private static readonly byte[] OneWidget = File.ReadAllBytes(Path.Combine(Vector.Load("one-widget").Directory, "input.json"));

    [Fact]
    public async Task SignHandler_SignedForTwoReceivers_CountsEachSignatureBytesAndDuration()
    {
        // Arrange
        using var harness = new TelemetryHarness();

        // Act: timed from outside, so the recorded duration has a ceiling that is no guess.
        var outside = Stopwatch.StartNew();
        var (status, traceId) = await harness.SignAsync(OneWidget, "?receiver=default&receiver=partner-a&forms=plain");
        outside.Stop();

        // Assert
        Assert.Equal(200, status);
        Assert.Equal(1, harness.Sum("widgetsigning.signatures", ("widgetsigning.receiver", "default"), ("widgetsigning.outcome", "signed"), ("widgetsigning.form", "plain"), ("widgetsigning.source", "http")));
        Assert.Equal(1, harness.Sum("widgetsigning.signatures", ("widgetsigning.receiver", "partner-a"), ("widgetsigning.outcome", "signed")));
        var canonicalLength = new FileInfo(Path.Combine(Vector.Load("one-widget").Directory, "canonical.json")).Length;
        Assert.Equal(canonicalLength, harness.Sum("widgetsigning.signed_bytes", ("widgetsigning.source", "http")));
        var duration = harness.Recorded("widgetsigning.sign.duration", ("widgetsigning.outcome", "signed"));
        Assert.Equal(1, duration.Count);
        Assert.InRange(duration.Sum, double.Epsilon, outside.Elapsed.TotalSeconds);
        Assert.Equal(0, harness.Sum("widgetsigning.refusals"));
        harness.TracerProvider.ForceFlush();
        var ours = harness.Spans.Where(s => s.TraceId == traceId).Select(s => s.DisplayName).ToList();
        Assert.Contains(WidgetSigningTelemetry.SignSpan, ours);
        Assert.Contains(WidgetSigningTelemetry.ReadSpan, ours);
    }

    [Fact]
    public async Task SignHandler_InvalidEnvelope_CountsARefusalByProblemTypeAndNoSignature()
    {
        // Arrange
        using var harness = new TelemetryHarness();

        // Act
        var (status, traceId) = await harness.SignAsync(Encoding.UTF8.GetBytes("{\"widgets\": [{\"id\": 7}]}"));

        // Assert
        Assert.Equal(400, status);
        Assert.Equal(1, harness.Sum("widgetsigning.refusals", ("widgetsigning.problem_type", "invalid-envelope"), ("widgetsigning.source", "http")));
        Assert.Equal(1, harness.Sum("widgetsigning.signatures", ("widgetsigning.outcome", "refused"), ("widgetsigning.receiver", WidgetSigningTelemetry.UnknownReceiver)));
        Assert.Equal(0, harness.Sum("widgetsigning.signatures", ("widgetsigning.outcome", "signed")));
        Assert.Equal(0, harness.Sum("widgetsigning.signed_bytes"));
        var duration = harness.Recorded("widgetsigning.sign.duration", ("widgetsigning.outcome", "refused"));
        Assert.Equal(1, duration.Count);
        Assert.True(duration.Sum > 0, $"a refusal's duration was recorded as {duration.Sum} s");
        harness.TracerProvider.ForceFlush();
        var sign = Assert.Single(harness.Spans, s => s.TraceId == traceId && s.DisplayName == WidgetSigningTelemetry.SignSpan);
        Assert.Equal(ActivityStatusCode.Error, sign.Status);
    }

    [Fact]
    public async Task SignHandler_UnknownReceiverNames_NeverBecomeTagValues()
    {
        // Arrange
        using var harness = new TelemetryHarness();

        // Act: a client naming receivers the deployment does not know.
        for (var i = 0; i < 20; i++)
        {
            await harness.SignAsync(OneWidget, $"?receiver=made-up-{i}");
        }

        // Assert
        Assert.Equal(20, harness.Sum("widgetsigning.refusals", ("widgetsigning.problem_type", "unknown-receiver")));
        harness.MeterProvider.ForceFlush();
        var receiverValues = harness.Metrics.Distinct()
            .SelectMany(m => Points(m))
            .SelectMany(tags => tags.Where(t => t.Key == WidgetSigningTelemetry.ReceiverTag).Select(t => (string?)t.Value))
            .Distinct()
            .ToList();
        Assert.Equal([WidgetSigningTelemetry.UnknownReceiver], receiverValues);
    }

    [Fact]
    public async Task KeyVaultRefresh_VaultUnreachable_CountsAFailure()
    {
        // Arrange: a vault on a closed loopback port, no retries.
        using var harness = new TelemetryHarness();
        var metrics = harness.Get<SigningMetrics>();
        var clientOptions = new SecretClientOptions { Retry = { MaxRetries = 0 } };
        var client = new SecretClient(new Uri("https://127.0.0.1:1/"), new NoCredential(), clientOptions);
        using var source = new KeyVaultReceiverKeySource(
            client,
            Options.Create(new KeyVaultOptions { VaultUri = "https://127.0.0.1:1/", SecretName = "signing" }),
            Options.Create(new ReceiverOptions()),
            TimeProvider.System,
            NullLogger<KeyVaultReceiverKeySource>.Instance,
            metrics);

        // Act
        await ProblemAssert.ThrowsAsync(Problems.Types.KeyUnavailable, async () => await source.GetSigningKeysAsync(source.DefaultReceiver!, CancellationToken.None));

        // Assert
        Assert.Equal(1, harness.Sum("widgetsigning.keyvault.refreshes", ("widgetsigning.outcome", "failure")));
        Assert.Equal(0, harness.Sum("widgetsigning.keyvault.refreshes", ("widgetsigning.outcome", "success")));
        harness.TracerProvider.ForceFlush();
        var refresh = Assert.Single(harness.Spans, s => s.DisplayName == WidgetSigningTelemetry.KeyVaultRefreshSpan);
        Assert.Equal(ActivityStatusCode.Error, refresh.Status);
    }

    [Fact]
    public void QueueMessageStarted_AgeAndDequeueCount_RecordTheirValuesAndPoisonIsCounted()
    {
        // Arrange
        using var harness = new TelemetryHarness();
        var metrics = harness.Get<SigningMetrics>();

        // Act
        metrics.QueueMessageStarted(TimeSpan.FromSeconds(42), dequeueCount: 3);
        metrics.QueueMessageStarted(age: null, dequeueCount: 1);
        metrics.Poisoned();

        // Assert
        Assert.Equal((1L, 42.0, 42.0, 42.0), harness.Recorded("widgetsigning.queue.message_age"));
        Assert.Equal((2L, 4.0, 1.0, 3.0), harness.Recorded("widgetsigning.queue.dequeue_count"));
        Assert.Equal(1, harness.Sum("widgetsigning.queue.poison"));
    }

    [Fact]
    public void KeyExpiryGauge_ObservedKeys_ReportsSecondsByReceiverAndState()
    {
        // Arrange
        using var harness = new TelemetryHarness();
        harness.Get<SigningMetrics>().ObserveKeys(() => [new KeyExpiryReading("partner-a", "current", 86_400 * 3)]);

        // Act
        var seconds = harness.Sum("widgetsigning.key.seconds_to_expiry", ("widgetsigning.receiver", "partner-a"), ("widgetsigning.key_state", "current"));

        // Assert
        Assert.Equal(86_400 * 3, seconds);
    }

    [Theory]
    [InlineData("urn:widget-signing:problem:body-too-large", "body-too-large")]
    [InlineData("urn:widget-signing:problem:unauthenticated", "unauthenticated")]
    [InlineData("https://example.com/not-ours", "other")]
    [InlineData(null, "other")]
    public void ShortName_ProblemType_IsItsLastSegmentOrOther(string? type, string expected)
    {
        // Act
        var name = SigningMetrics.ShortName(type);

        // Assert
        Assert.Equal(expected, name);
    }

    private static IEnumerable<List<KeyValuePair<string, object?>>> Points(OpenTelemetry.Metrics.Metric metric)
    {
        var all = new List<List<KeyValuePair<string, object?>>>();
        foreach (ref readonly var point in metric.GetMetricPoints())
        {
            var tags = new List<KeyValuePair<string, object?>>();
            foreach (var tag in point.Tags)
            {
                tags.Add(tag);
            }

            all.Add(tags);
        }

        return all;
    }

    private sealed class NoCredential : TokenCredential
    {
        public override AccessToken GetToken(TokenRequestContext requestContext, CancellationToken cancellationToken) => new("unused", DateTimeOffset.MaxValue);

        public override ValueTask<AccessToken> GetTokenAsync(TokenRequestContext requestContext, CancellationToken cancellationToken) => ValueTask.FromResult(GetToken(requestContext, cancellationToken));
    }
}
