#pragma once
/// @file all.hpp
/// Everything in the signal layer (segmentation of ECG recordings into beats).
#include "zeroflow/signal/beats.hpp"
#include "zeroflow/signal/embed.hpp"
#include "zeroflow/signal/nms.hpp"
#include "zeroflow/signal/normalize.hpp"
#include "zeroflow/signal/params.hpp"
#include "zeroflow/signal/peak_filter.hpp"
#include "zeroflow/signal/ricker.hpp"
#include "zeroflow/signal/segment.hpp"
#include "zeroflow/signal/warm_up.hpp"
