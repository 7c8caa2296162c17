using Microsoft.Extensions.Logging;
using Xunit.Abstractions;

namespace FunctionApp.Tests.TestKit;

/// <summary>Writes host logs to the test's output, so a failing host test shows what the host did.</summary>
public sealed class TestOutputLoggerProvider : ILoggerProvider
{
    private readonly ITestOutputHelper _output;
    private readonly LogLevel _minimum;

    public TestOutputLoggerProvider(ITestOutputHelper output, LogLevel minimum)
    {
        _output = output;
        _minimum = minimum;
    }

    public ILogger CreateLogger(string categoryName) => new Logger(this, categoryName);

    public void Dispose()
    {
    }

    private sealed class Logger(TestOutputLoggerProvider provider, string category) : ILogger
    {
        public IDisposable? BeginScope<TState>(TState state)
            where TState : notnull => null;

        public bool IsEnabled(LogLevel logLevel) => logLevel >= provider._minimum;

        public void Log<TState>(LogLevel logLevel, EventId eventId, TState state, Exception? exception, Func<TState, Exception?, string> formatter)
        {
            if (!IsEnabled(logLevel))
            {
                return;
            }

            try
            {
                provider._output.WriteLine($"[{logLevel}] {category} ({eventId.Id}): {formatter(state, exception)}{(exception is null ? string.Empty : " | " + exception.GetType().Name + ": " + exception.Message)}");
            }
            catch (InvalidOperationException)
            {
                // The test already finished; its output is closed.
            }
        }
    }
}
