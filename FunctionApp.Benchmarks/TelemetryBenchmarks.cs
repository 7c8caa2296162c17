#if NET10_0_OR_GREATER
using System.Diagnostics;
using BenchmarkDotNet.Attributes;
using FunctionApp.Benchmarks.Infrastructure;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Mvc;
using Microsoft.AspNetCore.Mvc.Abstractions;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Logging;
using OpenTelemetry;
using OpenTelemetry.Logs;
using OpenTelemetry.Metrics;
using OpenTelemetry.Trace;
using WidgetSigning.Http;
using WidgetSigning.Signing;
using WidgetSigning.Telemetry;

namespace FunctionApp.Benchmarks;

/// <summary>
/// The isolated app's 1 MB request (the seed's envelope through <see cref="SignHandler"/>) with its OpenTelemetry
/// registration on and off. On: <c>AddWidgetSigningTelemetry</c> as Program.cs calls it, each request under an
/// invocation span as the worker starts one, spans and log records batched to an exporter that drops them (what a
/// network exporter costs is its own thread's, not the request's), metrics aggregated as configured. Off: no provider
/// listens, as in the isolated app before telemetry was registered. In both, the log lines are formatted by a logger
/// that drops them, as the worker's own logger formats every line for the host whatever the telemetry.
/// </summary>
[MemoryDiagnoser]
public class TelemetryBenchmarks
{
    private static readonly ActivitySource Invocation = new("FunctionApp.Benchmarks.Invocation");

    private ServiceProvider _services = null!;
    private SignHandler _handler = null!;
    private byte[] _body = null!;
    private MemoryStream _requestBody = null!;

    /// <summary>Whether the telemetry registration is on.</summary>
    [Params(false, true)]
    public bool Telemetry { get; set; }

    /// <summary>Wires the core as the isolated app does, with or without telemetry, and checks a request signs.</summary>
    [GlobalSetup]
    public void Setup()
    {
        _body = BenchmarkData.Create(BenchmarkData.SeedWidgetCount).SeedBody();
        _requestBody = new MemoryStream(_body, writable: false);
        var configuration = BenchmarkData.LocalConfiguration();
        var services = new ServiceCollection()
            .AddLogging(logging => logging.SetMinimumLevel(LogLevel.Information).AddProvider(new FormattingLoggerProvider()))
            .AddMetrics();
        services.AddWidgetSigning(configuration).AddWidgetHttp(configuration);
        if (Telemetry)
        {
            services.AddOpenTelemetry()
                .AddWidgetSigningTelemetry(configuration)
                .WithTracing(tracing => tracing.AddSource(Invocation.Name).AddProcessor(new BatchActivityExportProcessor(new Dropping<Activity>())))
                .WithLogging(logging => logging.AddProcessor(new BatchLogRecordExportProcessor(new Dropping<LogRecord>())));
        }

        _services = services.BuildServiceProvider();
        if (Telemetry)
        {
            _ = _services.GetRequiredService<TracerProvider>();
            _ = _services.GetRequiredService<MeterProvider>();
            _ = _services.GetRequiredService<LoggerProvider>();
        }

        _handler = _services.GetRequiredService<SignHandler>();
        var status = InvokeAsync().GetAwaiter().GetResult();
        if (status != StatusCodes.Status200OK)
        {
            throw new InvalidOperationException($"The request was answered {status}.");
        }
    }

    /// <summary>Disposes the services (and with them the providers).</summary>
    [GlobalCleanup]
    public void Cleanup()
    {
        _services.Dispose();
        _requestBody.Dispose();
    }

    /// <summary>One 1 MB request through the isolated app's handler.</summary>
    [Benchmark]
    public Task<int> IsolatedApp_HttpFunctions_SignAsync() => InvokeAsync();

    private async Task<int> InvokeAsync()
    {
        using var invocation = Invocation.StartActivity("function Sign", ActivityKind.Internal);
        _requestBody.Position = 0;
        var context = new DefaultHttpContext { RequestServices = _services };
        context.Request.Method = HttpMethods.Post;
        context.Request.ContentType = "application/json";
        context.Request.ContentLength = _body.Length;
        context.Request.Body = _requestBody;
        context.Response.Body = Stream.Null;
        var result = await _handler.HandleAsync(context.Request).ConfigureAwait(false);
        await result.ExecuteResultAsync(new ActionContext(context, new RouteData(), new ActionDescriptor())).ConfigureAwait(false);
        return context.Response.StatusCode;
    }

    // The worker's channel to the host, as far as a request pays for it: every line formatted, then dropped.
    private sealed class FormattingLoggerProvider : ILoggerProvider
    {
        public ILogger CreateLogger(string categoryName) => new FormattingLogger();

        public void Dispose()
        {
        }

        private sealed class FormattingLogger : ILogger
        {
            public IDisposable? BeginScope<TState>(TState state)
                where TState : notnull => null;

            public bool IsEnabled(LogLevel logLevel) => logLevel >= LogLevel.Information;

            public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter) =>
                GC.KeepAlive(formatter(state, exception));
        }
    }

    // An exporter that accepts and drops every batch.
    private sealed class Dropping<T> : BaseExporter<T>
        where T : class
    {
        public override ExportResult Export(in Batch<T> batch) => ExportResult.Success;
    }
}
#endif
